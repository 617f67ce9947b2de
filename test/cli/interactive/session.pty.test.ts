import { afterAll, describe, expect, it } from "@effect/vitest"
import { join } from "node:path"
import { runCli } from "../../support/cli.js"
import { eventsOf } from "../../support/events.js"
import { keys, openOnPty } from "../../support/pty-screen.js"
import { makeTemp } from "../../support/temp-dirs.js"
import { exportedEvents, scriptedWorkspace, sessionIdOn } from "../../support/tui-session.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const workspace = (responses: ReadonlyArray<unknown>) => scriptedWorkspace(temps.dir("tui-session-"), responses)

describe("writing in the interactive session", () => {
  it("while a turn runs, Enter queues the message for the next turn and Ctrl+S sends one to steer it", { timeout: 60_000 }, async () => {
    // A step that ends in a tool call: the steering message joins the turn at its next step.
    const slow = { chunks: [...Array.from({ length: 12 }, (_, i) => ({ text: `w${i} ` })), { toolCall: { name: "read_file", input: { path: "script.json" } } }], delayMs: 300 }
    const cwd = workspace([slow, "answer two", "answer three"])
    const home = temps.dir("tui-home-")
    const session = openOnPty(["--script", "script.json"], { cwd, home, cols: 100 })
    try {
      await session.waitFor("custom-agent")
      session.type("first")
      session.type(keys.enter)
      await session.waitFor("w1")
      session.type("for later")
      session.type(keys.enter)
      await session.waitFor("⧗ queued: for later")
      session.type("change course")
      session.type(keys.ctrlS)
      await session.waitFor("↪ steering: change course")
      await session.waitFor("answer three")
      const users = eventsOf(await exportedEvents(home, sessionIdOn(session.all())), "user.message").map((event) => [event.payload.content, event.payload.mode])
      expect(users).toEqual([
        ["first", "queue"],
        ["change course", "steer"],
        ["for later", "queue"]
      ])
    } finally {
      session.kill()
    }
  })

  it("a large paste stays one message; Shift+Enter adds a line", { timeout: 60_000 }, async () => {
    const cwd = workspace(["got it", "got both"])
    const home = temps.dir("tui-home-")
    const session = openOnPty(["--script", "script.json"], { cwd, home, cols: 80 })
    try {
      await session.waitFor("custom-agent")
      const pasted = Array.from({ length: 30 }, (_, i) => `pasted line ${i + 1}`).join("\n")
      session.type(`\x1b[200~${pasted}\x1b[201~`)
      await session.waitFor("[paste #1")
      session.type(keys.enter)
      await session.waitFor("got it")
      session.type("top")
      session.type(keys.shiftEnter)
      session.type("bottom")
      await session.waitFor(/^top\s*\n\s*bottom/m)
      session.type(keys.enter)
      await session.waitFor("got both")
      const users = eventsOf(await exportedEvents(home, sessionIdOn(session.all())), "user.message").map((event) => event.payload.content)
      expect(users).toEqual([pasted, "top\nbottom"])
    } finally {
      session.kill()
    }
  })

  it("Ctrl-C twice quits, saying how to resume; -c resumes this workspace's last session with its history; -r ID that one", { timeout: 90_000 }, async () => {
    const cwd = workspace(["the first answer", "the second answer"])
    const home = temps.dir("tui-home-")
    const first = openOnPty(["--script", "script.json"], { cwd, home, cols: 100 })
    let sessionId = ""
    try {
      await first.waitFor("custom-agent")
      first.type("remember me")
      first.type(keys.enter)
      await first.waitFor("the first answer")
      sessionId = sessionIdOn(first.all())
      first.type(keys.ctrlC)
      await first.waitFor("press ctrl+c again to quit")
      first.type(keys.ctrlC)
      expect(await first.exit).toBe(0)
      expect(first.all()).toContain(`session ${sessionId} · resume it with: custom-agent --resume ${sessionId}`)
    } finally {
      first.kill()
    }
    for (const args of [["-c"], ["-r", sessionId.slice(0, 12)]]) {
      const again = openOnPty(["--script", "script.json", ...args], { cwd, home, cols: 100 })
      try {
        const shown = await again.waitFor("the first answer")
        expect(shown, args.join(" ")).toContain(`── session ${sessionId}`)
        expect(shown).toContain("› remember me")
      } finally {
        again.kill()
      }
    }
  })

  it("-r alone opens the picker, this workspace's sessions first; typing filters it", { timeout: 90_000 }, async () => {
    const cwd = workspace(["answer a", "answer b", "answer c"])
    const home = temps.dir("tui-home-")
    for (const prompt of ["alpha task", "beta task"]) {
      const result = await runCli(["run", "--script", "script.json", prompt], { cwd, env: { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: join(home, "config") } })
      expect(result.code, result.stderr).toBe(0)
    }
    const session = openOnPty(["--script", "script.json", "-r"], { cwd, home, cols: 100 })
    try {
      const picker = await session.waitFor("Resume a session")
      expect(picker).toMatch(/› beta task[\s\S]*alpha task/)
      session.type("alpha")
      await session.waitFor((text) => text.includes("› alpha task") && !text.includes("beta task"), { where: "screen" })
      session.type(keys.enter)
      await session.waitFor("answer a")
      expect(session.all()).toContain("› alpha task")
    } finally {
      session.kill()
    }
  })

  it("a plan is shown whole and approved with a key", { timeout: 60_000 }, async () => {
    const cwd = workspace([{ chunks: [{ toolCall: { name: "exit_plan_mode", input: { plan: "## Steps\n\n1. read\n2. write" } } }] }, "carrying it out"])
    const home = temps.dir("tui-home-")
    const session = openOnPty(["--script", "script.json", "--mode", "plan"], { cwd, home, cols: 100 })
    try {
      await session.waitFor("custom-agent")
      session.type("make a plan")
      session.type(keys.enter)
      const asked = await session.waitFor("[n] keep planning")
      expect(asked).toMatch(/│ Steps[\s\S]*│ 1\. read[\s\S]*│ 2\. write/)
      session.type("e")
      const approved = await session.waitFor("carrying it out")
      expect(approved).toContain("✓ plan approved by user: carried out in accept-edits mode")
      expect(approved).toMatch(/mode accept-edits/)
    } finally {
      session.kill()
    }
  })
})
