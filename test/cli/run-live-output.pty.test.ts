import { afterAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { openOnPty } from "../support/pty-screen.js"
import { makeTemp } from "../support/temp-dirs.js"
import { scriptedWorkspace } from "../support/tui-session.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** Seven lines, one of them hostile, then a wait for the test to create `go`. */
const command = "for i in 1 2 3 4 5 6; do echo line $i; done; printf 'clip \\033]52;c;cGF3bmVk\\007 \\rwiped\\n'; while [ ! -e go ]; do sleep 0.05; done"

describe("run on a terminal while a command runs", () => {
  it("draws its last lines under the spinner, visibly, and leaves none behind once the call's line prints", { timeout: 60_000 }, async () => {
    const cwd = scriptedWorkspace(temps.dir("run-live-"), [{ chunks: [{ toolCall: { name: "shell", input: { command }, id: "call_sh" } }] }, "all done"])
    const home = temps.dir("run-live-home-")
    const session = openOnPty(["run", "--script", "script.json", "--mode", "bypass", "build it"], { cwd, home, cols: 80 })
    try {
      const running = await session.waitFor("  clip ^[]52;c;cGF3bmVk^G ^Mwiped", { where: "screen" })
      // The spinner's line, then the last five lines of the output.
      expect(running).toMatch(/\S shell for i in 1 2 3.* \d+s\n {2}line 3\n {2}line 4\n {2}line 5\n {2}line 6\n {2}clip/)
      expect(running).not.toContain("  line 2")
      expect(session.raw()).not.toContain("\x1b]52;c;cGF3bmVk")
      writeFileSync(join(cwd, "go"), "")
      expect(await session.exit).toBe(0)
      const screen = session.screen()
      expect(screen).toMatch(/✓ shell for i in 1 2 3.* · exit 0/)
      expect(screen).toContain("all done")
      // The lines drawn in place are gone: each output line shows once, under the call's line.
      expect(screen.match(/line 6/g)).toHaveLength(1)
      expect(screen).not.toMatch(/\d+s\n {2}line/)
    } finally {
      session.kill()
    }
  })
})
