import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { keys, openOnPty } from "../../support/pty-screen.js"
import { makeTemp } from "../../support/temp-dirs.js"
import { exportedEvents, scriptedWorkspace, sessionIdOn } from "../../support/tui-session.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const workspace = (responses: ReadonlyArray<unknown>) => scriptedWorkspace(temps.dir("tui-turns-"), responses)

describe("turns in the interactive session", () => {
  it("Esc cancels the running turn; the editor takes the next message", { timeout: 60_000 }, async () => {
    const slow = { chunks: Array.from({ length: 40 }, (_, i) => ({ text: `word${i} ` })), delayMs: 500 }
    const cwd = workspace([slow, "second answer"])
    const home = temps.dir("tui-home-")
    const session = openOnPty(["--script", "script.json"], { cwd, home, cols: 80 })
    try {
      await session.waitFor("custom-agent")
      session.type("talk slowly")
      session.type(keys.enter)
      await session.waitFor("word1")
      expect(session.screen()).toContain("esc to cancel")
      session.type(keys.escape)
      const cancelled = await session.waitFor(/── cancelled/)
      expect(cancelled).not.toContain("word39")
      session.type("again")
      session.type(keys.enter)
      await session.waitFor("second answer")
      const events = await exportedEvents(home, sessionIdOn(session.all()))
      expect(events.filter((event) => event.type === "turn.completed").map((event) => event.type === "turn.completed" && event.payload.stopReason)).toEqual(["cancelled", "final"])
    } finally {
      session.kill()
    }
  })

  it("/model makes the model the session's at once: recorded in its log and shown in the status line before the next message", { timeout: 60_000 }, async () => {
    const cwd = workspace(["first", "second"])
    const home = temps.dir("tui-home-")
    const session = openOnPty(["--script", "script.json"], { cwd, home, cols: 120 })
    try {
      await session.waitFor("custom-agent")
      session.type("one")
      session.type(keys.enter)
      await session.waitFor(/^first/m)
      const sessionId = sessionIdOn(session.all())
      session.type("/model openai/gpt-4o-mini")
      session.type(keys.enter)
      await session.waitFor("model: openai/gpt-4o-mini (set by cli)")
      // The status line says it, with nothing pending.
      await session.waitFor((text) => /openai\/gpt-4o-mini · mode default/.test(text) && !text.includes("from your next message"), { where: "screen" })
      // Recorded now, before another message is sent.
      const recorded = await exportedEvents(home, sessionId)
      expect(recorded.filter((event) => event.type === "session.model_changed").map((event) => event.payload)).toEqual([{ model: "openai/gpt-4o-mini", by: "cli" }])
      expect(recorded.filter((event) => event.type === "turn.started")).toHaveLength(1)
      session.type("two")
      session.type(keys.enter)
      await session.waitFor(/^second/m)
      const events = await exportedEvents(home, sessionId)
      expect(events.filter((event) => event.type === "session.model_changed")).toHaveLength(1)
      // A name that is no model is refused here, and nothing is recorded.
      session.type("/model gpt-5")
      session.type(keys.enter)
      await session.waitFor("/model:")
    } finally {
      session.kill()
    }
  })

  it("a command nobody knows is not sent to the model; the nearest known one is named", { timeout: 60_000 }, async () => {
    const cwd = workspace(["never played"])
    const home = temps.dir("tui-home-")
    const session = openOnPty(["--script", "script.json"], { cwd, home, cols: 120 })
    try {
      await session.waitFor("custom-agent")
      session.type("/modle x")
      session.type(keys.enter)
      const refused = await session.waitFor("is not a command here")
      expect(refused).toContain("/modle is not a command here; did you mean /model? (/help lists them; nothing was sent)")
      expect(refused).not.toContain("never played")
      expect(refused).not.toContain("── session")
    } finally {
      session.kill()
    }
  })

  it("/rewind puts a file back as it was before the turn picked", { timeout: 90_000 }, async () => {
    const write = (content: string) => ({ chunks: [{ toolCall: { name: "write_file", input: { path: "notes.md", content } } }] })
    const cwd = workspace([write("first draft\n"), "done one", write("rewritten\n"), "done two"])
    const home = temps.dir("tui-home-")
    const session = openOnPty(["--script", "script.json", "--mode", "accept-edits", "--sandbox", "off"], { cwd, home, cols: 100 })
    try {
      await session.waitFor("custom-agent")
      session.type("draft it")
      session.type(keys.enter)
      await session.waitFor("done one")
      session.type("rewrite it")
      session.type(keys.enter)
      await session.waitFor("done two")
      expect(readFileSync(join(cwd, "notes.md"), "utf8")).toBe("rewritten\n")
      session.type("/rewind")
      session.type(keys.enter)
      const turns = await session.waitFor("Rewind to before which turn?")
      // The latest turn first.
      expect(turns).toMatch(/› turn 2: rewrite it[\s\S]*turn 1: draft it/)
      session.type(keys.enter)
      await session.waitFor("Restore what, to before turn 2?")
      session.type(keys.down)
      session.type(keys.enter)
      await session.waitFor("restored 1 file(s) from checkpoint")
      expect(readFileSync(join(cwd, "notes.md"), "utf8")).toBe("first draft\n")
    } finally {
      session.kill()
    }
  })
})
