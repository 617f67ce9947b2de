import { afterAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { keys, openOnPty } from "../../support/pty-screen.js"
import { makeTemp } from "../../support/temp-dirs.js"
import { exportedEvents, scriptedWorkspace, sessionIdOn } from "../../support/tui-session.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** Prints two lines (one hostile), then waits for the test to create `go` in the workspace. */
const command = "printf 'compiling step one\\n'; printf 'clip \\033]52;c;cGF3bmVk\\007 \\033[2J\\rwiped\\n'; while [ ! -e go ]; do sleep 0.05; done; printf 'finished\\n'"

describe("a running command in the interactive session", () => {
  it("shows its last lines under its line while it runs, safely, and folds them into the one line when it ends", { timeout: 60_000 }, async () => {
    const cwd = scriptedWorkspace(temps.dir("tui-live-"), [{ chunks: [{ toolCall: { name: "shell", input: { command }, id: "call_sh" } }] }, "all done"])
    const home = temps.dir("tui-home-")
    const session = openOnPty(["--script", "script.json", "--mode", "bypass"], { cwd, home, cols: 100 })
    try {
      await session.waitFor("custom-agent")
      session.type("build it")
      session.type(keys.enter)
      const running = await session.waitFor("│ compiling step one", { where: "screen" })
      // Still running: the result is not there, the call's line says so, the hostile line is shown, not obeyed.
      expect(running).toMatch(/^⋯ shell printf /m)
      expect(running).toContain("│ clip ^[]52;c;cGF3bmVk^G ^[[2J^Mwiped")
      expect(running).not.toContain("finished")
      expect(session.raw()).not.toContain("\x1b]52;c;cGF3bmVk")
      writeFileSync(join(cwd, "go"), "")
      const after = await session.waitFor("all done", { where: "screen" })
      expect(after).toMatch(/✓ shell printf .* · exit 0/)
      expect(after).not.toContain("│ compiling step one")
      const events = await exportedEvents(home, sessionIdOn(session.all()))
      expect(events.filter((event) => event.type === "tool.output").length).toBeGreaterThan(0)
    } finally {
      session.kill()
    }
  })
})
