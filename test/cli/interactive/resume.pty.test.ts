import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SessionListItem } from "../../../src/domain/host.js"
import { runCli } from "../../support/cli.js"
import { keys, openOnPty } from "../../support/pty-screen.js"
import { makeTemp } from "../../support/temp-dirs.js"
import { runOnTerminal } from "../../support/terminal.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const write = (path: string) => ({ chunks: [{ toolCall: { name: "write_file", input: { path, content: "from the session\n" } } }] })

/**
 * Two workspaces on one store: `here`, where the person is, and `there`, whose project
 * configuration widens what the agent may do (an allow rule) and is not trusted. A session of
 * `there` keeps its own workspace wherever it is continued from; it is opened only once the
 * person said so, and that workspace's trust is decided as when starting in it.
 */
const twoWorkspaces = async () => {
  const root = temps.dir("tui-resume-")
  const here = join(root, "here")
  const there = join(root, "there")
  mkdirSync(here, { recursive: true })
  mkdirSync(join(there, ".custom-agent"), { recursive: true })
  writeFileSync(join(there, ".custom-agent", "permissions.json"), JSON.stringify({ rules: [{ tool: "write_file", path: "notes.txt", decision: "allow" }] }))
  const home = join(root, "home")
  const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: join(home, "config") }
  const greet = join(root, "greet.json")
  writeFileSync(greet, JSON.stringify({ responses: ["hello back"] }))
  // Each session plays its script from the start: a continued one writes notes.txt, then answers.
  const continued = join(root, "continued.json")
  writeFileSync(continued, JSON.stringify({ responses: [write("notes.txt"), "wrote the notes"] }))
  for (const [cwd, prompt] of [[there, "hello there"], [here, "hello here"]] as const) {
    const result = await runCli(["run", "--script", greet, prompt], { cwd, env })
    expect(result.code, result.stderr).toBe(0)
  }
  const listed: ReadonlyArray<SessionListItem> = JSON.parse((await runCli(["sessions", "list", "--all", "--json"], { env })).stdout)
  const thereId = listed.find((item) => item.cwd === there)?.sessionId ?? ""
  return { root, here, there, home, env, continued, thereId }
}

const trustStatus = async (cwd: string, env: Record<string, string>) => (await runCli(["trust", "--status"], { cwd, env })).stdout

describe("/resume of another workspace's session", () => {
  it("lists this workspace's sessions first, then others marked with their folder; opening one asks, says where it works, and leaves its configuration untrusted unless trusted", { timeout: 120_000 }, async () => {
    const { here, there, home, env, continued, thereId } = await twoWorkspaces()
    expect(thereId).not.toBe("")
    const session = openOnPty(["--script", continued], { cwd: here, home, cols: 160, rows: 40, env })
    try {
      await session.waitFor("custom-agent")
      session.type("/resume")
      session.type(keys.enter)
      const picker = await session.waitFor("Resume a session")
      expect(picker).toMatch(/hello here[\s\S]*hello there {2}\[in [^\]]*there\]/)

      // Leaving the question opens nothing.
      session.type("there")
      await session.waitFor((text) => /› hello there/.test(text) && !text.includes("hello here  "), { where: "screen" })
      session.type(keys.enter)
      await session.waitFor(`Open session ${thereId} of ${there}?`)
      const asked = session.all()
      expect(asked).toContain(`session ${thereId} works in ${there}, not in ${here}`)
      expect(asked).toContain('allow write_file path "notes.txt"')
      session.type(keys.down)
      session.type(keys.down)
      session.type(keys.enter)
      await session.waitFor("stayed in this session: nothing was opened")
      expect(session.all()).not.toContain(`── session ${thereId}`)

      // Opened, not trusted: it works there, says so, and its allow rule stays off (the write asks).
      session.type("/resume")
      session.type(keys.enter)
      await session.waitFor("Resume a session", { where: "screen" })
      session.type("there")
      await session.waitFor((text) => /› hello there/.test(text) && !text.includes("hello here  "), { where: "screen" })
      session.type(keys.enter)
      await session.waitFor(`Open session ${thereId}`, { where: "screen" })
      session.type(keys.enter)
      await session.waitFor(`── session ${thereId} · works in ${there}`)
      // The status line says where its tools act.
      await session.waitFor(`mode default · in ${there}`, { where: "screen" })
      expect(session.all()).toContain("hello back")
      session.type("write the notes")
      session.type(keys.enter)
      await session.waitFor("[n] deny")
      session.type("y")
      await session.waitFor("wrote the notes")
      expect(readFileSync(join(there, "notes.txt"), "utf8")).toBe("from the session\n")
      expect(existsSync(join(here, "notes.txt"))).toBe(false)
      expect(await trustStatus(there, env)).toContain("not trusted")
    } finally {
      session.kill()
    }
  })
})

describe("/resume of another workspace's session, trusted", () => {
  it("opened with its configuration trusted, its allow rule lets the write run; the trust is recorded", { timeout: 120_000 }, async () => {
    const { here, there, home, env, continued, thereId } = await twoWorkspaces()
    const session = openOnPty(["--script", continued, "-r", thereId], { cwd: here, home, cols: 160, rows: 40, env })
    try {
      // -r ID of another workspace asks the same question before anything is opened.
      await session.waitFor(`Open session ${thereId} of ${there}?`)
      session.type(keys.down)
      session.type(keys.enter)
      await session.waitFor(`trusted the configuration of ${there}`)
      await session.waitFor(`── session ${thereId} · works in ${there}`)
      session.type("write the notes")
      session.type(keys.enter)
      const done = await session.waitFor("wrote the notes")
      expect(done).not.toContain("[n] deny")
      expect(readFileSync(join(there, "notes.txt"), "utf8")).toBe("from the session\n")
      expect(await trustStatus(there, env)).not.toContain("not trusted")
    } finally {
      session.kill()
    }
  })
})

describe("run --session of another workspace's session", () => {
  it("without a terminal is refused; on one it asks, the trust of its workspace too, and works there", { timeout: 120_000 }, async () => {
    const { here, there, env, continued, thereId } = await twoWorkspaces()
    const away = await runCli(["run", "--session", thereId, "--script", continued, "write the notes"], { cwd: here, env })
    expect(away.code).toBe(1)
    expect(away.stderr).toContain(`session ${thereId} works in ${there}, not in ${here}`)
    expect(existsSync(join(there, "notes.txt"))).toBe(false)

    const no = await runOnTerminal(here, ["run", "--session", thereId, "--script", continued, "write the notes"], "[y/N] ", ["n\r"], env)
    expect(no.code).toBe(1)
    expect(no.output).toContain(`session ${thereId} was not continued (it works in ${there})`)
    expect(existsSync(join(there, "notes.txt"))).toBe(false)

    // Yes, then trusted: its allow rule lets the write run with nobody asked.
    const yes = await runOnTerminal(here, ["run", "--session", thereId, "--script", continued, "write the notes"], "[y/N] ", ["y\r", "y\r"], env)
    expect(yes.code, yes.output).toBe(0)
    expect(yes.output).toContain(`works in ${there}, not in ${here}: continued from here`)
    expect(yes.output).toContain('allow write_file path "notes.txt"')
    expect(yes.output).toContain("wrote the notes")
    expect(readFileSync(join(there, "notes.txt"), "utf8")).toBe("from the session\n")
    expect(existsSync(join(here, "notes.txt"))).toBe(false)
    expect(await trustStatus(there, env)).not.toContain("not trusted")
  })
})
