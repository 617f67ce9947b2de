import { afterAll, describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertBuilt, cliPath, repoRoot, runCli } from "../support/cli.js"
import { eventsOf, parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

/**
 * A real ACP client from the registry (acpx, a headless command-line client) driving the agent
 * as a person would from a shell: one-shot prompts with its permission policies, a kept session
 * it prompts twice, modes, and closing it. What it sees is checked in its output, what happened
 * in the session's log.
 */

const temps = makeTemp()
afterAll(temps.cleanup)

const acpxBin = join(repoRoot, "node_modules", ".bin", "acpx")

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

interface Setup {
  readonly cwd: string
  /** acpx's own state (`~/.acpx`) and the agent's data, both inside the test's folders. */
  readonly home: string
  readonly acpx: (args: ReadonlyArray<string>) => Promise<Outcome>
}

const setup = (responses: ReadonlyArray<unknown>): Setup => {
  assertBuilt()
  const cwd = temps.dir("acpx-workspace-")
  const home = temps.dir("acpx-home-")
  writeFileSync(join(cwd, "script.json"), JSON.stringify({ responses }))
  const agent = `${process.execPath} ${cliPath} acp --script ${join(cwd, "script.json")}`
  const acpx = (args: ReadonlyArray<string>) =>
    new Promise<Outcome>((resolve, reject) => {
      // A short queue-owner lifetime: a kept session's agent process goes soon after the test closes it.
      const child = spawn(acpxBin, ["--agent", agent, "--ttl", "5", "--timeout", "60", ...args], {
        cwd,
        env: { PATH: process.env["PATH"], HOME: home, NO_COLOR: "1", CUSTOM_AGENT_HOME: join(home, "data"), CUSTOM_AGENT_CONFIG_HOME: join(home, "config") },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
      child.on("error", reject)
      child.on("close", (code) => resolve({ code, stdout, stderr }))
    })
  return { cwd, home, acpx }
}

const writeCall = { chunks: [{ text: "Writing it." }, { toolCall: { name: "write_file", input: { path: "out.txt", content: "made through acpx\n" } } }] }

const exported = async (home: string, sessionId: string) => {
  const result = await runCli(["sessions", "export", sessionId], { env: { CUSTOM_AGENT_HOME: join(home, "data") } })
  expect(result.code, result.stderr).toBe(0)
  return parseEventLines(result.stdout)
}

describe("acpx, a real ACP client, driving the agent", () => {
  it("one-shot: the answer streams to it, a write it approves lands, and the log records its approval", { timeout: 90_000 }, async () => {
    const { cwd, home, acpx } = setup([writeCall, "Done."])
    const result = await acpx(["--approve-all", "exec", "write out.txt"])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toContain("Writing it.")
    expect(result.stdout).toContain("[tool] Write out.txt (completed)")
    expect(result.stdout).toContain("Done.")
    expect(result.stdout).toContain("[done] end_turn")
    expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("made through acpx\n")
    const listed = await runCli(["sessions", "list", "--all"], { cwd, env: { CUSTOM_AGENT_HOME: join(home, "data") } })
    const sessionId = /ses_\w+/.exec(listed.stdout)?.[0] ?? ""
    const [resolved] = eventsOf(await exported(home, sessionId), "permission.resolved")
    expect(resolved?.payload).toMatchObject({ decision: "allow", scope: "once", by: "user", client: "acp" })
  })

  it("one-shot: a write it denies does not land, the model is told, and acpx reports the denial", { timeout: 90_000 }, async () => {
    const { cwd, acpx } = setup([writeCall, "Understood."])
    const result = await acpx(["--deny-all", "exec", "write out.txt"])
    // acpx's exit code for a turn in which a permission was denied.
    expect(result.code, result.stderr).toBe(5)
    expect(result.stdout).toContain("[tool] Write out.txt (failed)")
    expect(result.stdout).toContain("Permission denied")
    expect(existsSync(join(cwd, "out.txt"))).toBe(false)
  })

  it("a kept session: two prompts land in one session of the agent in order, a mode it sets is recorded, and closing it ends the agent", { timeout: 120_000 }, async () => {
    const { home, acpx } = setup(["First answer.", "Second answer, same session."])
    const created = await acpx(["sessions", "new"])
    expect(created.code, created.stderr).toBe(0)
    const sessionId = /ses_\w+/.exec(created.stdout)?.[0] ?? ""
    expect(sessionId).not.toBe("")
    try {
      const first = await acpx(["--format", "quiet", "prompt", "one"])
      expect(first.code, first.stderr).toBe(0)
      expect(first.stdout.trim()).toBe("First answer.")
      const second = await acpx(["--format", "quiet", "prompt", "two"])
      expect(second.code, second.stderr).toBe(0)
      expect(second.stdout.trim()).toBe("Second answer, same session.")
      const mode = await acpx(["set-mode", "plan"])
      expect(mode.code, mode.stderr).toBe(0)
      const listed = await acpx(["sessions", "list"])
      expect(listed.stdout).toContain(sessionId)

      const events = await exported(home, sessionId)
      expect(eventsOf(events, "user.message").map((event) => event.payload.content)).toEqual(["one", "two"])
      expect(eventsOf(events, "turn.completed")).toHaveLength(2)
      expect(eventsOf(events, "session.mode_changed").map((event) => event.payload.mode)).toEqual(["plan"])
    } finally {
      const closed = await acpx(["sessions", "close"])
      expect(closed.code, closed.stderr).toBe(0)
    }
    const status = await acpx(["status"])
    expect(status.stdout).not.toContain("status: running")
  })
})
