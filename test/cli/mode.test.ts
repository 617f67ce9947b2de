import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { runCli, startServer, stop } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** A workspace, an empty user configuration and a data dir, with a script that writes `file`. */
const setup = (file: string) => {
  const root = temps.dir("cli-mode-")
  const cwd = join(root, "work")
  const configDir = join(root, "config")
  for (const dir of [cwd, configDir]) mkdirSync(dir, { recursive: true })
  const script: Script = { responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: file, content: "written" } } }] }, "Done."] }
  const scriptFile = join(root, "script.json")
  writeFileSync(scriptFile, JSON.stringify(script))
  return { cwd, scriptFile, env: { CUSTOM_AGENT_HOME: join(root, "data"), CUSTOM_AGENT_CONFIG_HOME: configDir } }
}

const resolved = (events: ReadonlyArray<AgentEvent>) =>
  events.flatMap((e) => (e.type === "permission.resolved" ? [{ decision: e.payload.decision, by: e.payload.by, reason: e.payload.reason }] : []))

describe("custom-agent run: the session keeps its mode", () => {
  it("run --mode plan records the mode; run --session ID without --mode stays in plan, whatever the approval policy", { timeout: 60_000 }, async () => {
    const { cwd, scriptFile, env } = setup("out.txt")
    const first = await runCli(["run", "look only", "--mode", "plan", "--approve", "allow-all", "--script", scriptFile, "--json"], { cwd, env })
    expect(first.code).toBe(0)
    const created = parseEventLines(first.stdout)
    expect(created.slice(0, 3).map((e) => e.type)).toEqual(["session.created", "session.mode_changed", "turn.started"])
    expect(created[1]?.payload).toEqual({ mode: "plan", by: "cli" })
    const sessionId = created[0]?.sessionId ?? ""

    const second = await runCli(["run", "now write it", "--session", sessionId, "--approve", "allow-all", "--script", scriptFile, "--json"], { cwd, env })
    expect(second.code).toBe(0)
    const continued = parseEventLines(second.stdout)
    expect(continued[0]).toMatchObject({ type: "turn.started", payload: { permissionMode: "plan" } })
    expect(continued.some((e) => e.type === "session.mode_changed")).toBe(false)
    expect(resolved(continued)).toEqual([{ decision: "deny", by: "mode", reason: expect.any(String) }])
    expect(existsSync(join(cwd, "out.txt"))).toBe(false)

    // Naming a mode again changes it, for this turn and the next.
    const third = await runCli(["run", "go ahead", "--session", sessionId, "--mode", "accept-edits", "--script", scriptFile, "--json"], { cwd, env })
    const changed = parseEventLines(third.stdout)
    expect(changed[0]).toMatchObject({ type: "session.mode_changed", payload: { mode: "accept-edits", by: "cli" } })
    expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("written")

    const shown = await runCli(["sessions", "show", sessionId], { cwd, env })
    expect(shown.stdout).toContain("mode: plan (set by cli)")
    expect(shown.stdout).toContain("mode: accept-edits (set by cli)")
  })

  it("run --server --approve records the policy's answers as the policy's, naming it", { timeout: 60_000 }, async () => {
    const { cwd, scriptFile, env } = setup("remote.txt")
    const server = await startServer(["--script", scriptFile], { env })
    try {
      const remote = await runCli(["run", "write it", "--server", server.url, "--approve", "allow-edits", "--json"], {
        cwd,
        env: { ...env, CUSTOM_AGENT_TOKEN: server.token }
      })
      expect(remote.code).toBe(0)
      const events = parseEventLines(remote.stdout)
      expect(resolved(events)).toEqual([{ decision: "allow", by: "policy", reason: "--approve allow-edits" }])
      expect(readFileSync(join(cwd, "remote.txt"), "utf8")).toBe("written")
    } finally {
      await stop(server.child)
    }
  })
})
