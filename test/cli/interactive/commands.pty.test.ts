import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli.js"
import { eventsOf, parseEventLines } from "../../support/events.js"
import { keys, openOnPty } from "../../support/pty-screen.js"
import { makeTemp } from "../../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

describe("the workspace's command files in the interactive session", () => {
  it("are offered after /, listed by /help, and sent as typed for the agent to expand", { timeout: 60_000 }, async () => {
    const cwd = temps.dir("tui-commands-")
    const home = temps.dir("tui-home-")
    mkdirSync(join(cwd, ".claude", "commands"), { recursive: true })
    writeFileSync(join(cwd, ".claude", "commands", "review.md"), "---\ndescription: Review a file with care\nargument-hint: [file]\n---\nReview $1 carefully.\n")
    writeFileSync(join(cwd, "script.json"), JSON.stringify({ responses: ["reviewed it"] }))
    const session = openOnPty(["--script", "script.json"], { cwd, home, cols: 100 })
    try {
      await session.waitFor("custom-agent")
      session.type("/revi")
      await session.waitFor("Review a file with care", { where: "screen" })
      session.type(keys.escape)
      // Typed once the list is gone: an Esc followed at once by a letter is that letter with Alt.
      await session.waitFor((text) => !text.includes("Review a file with care"), { where: "screen" })
      session.type("ew a.txt")
      session.type(keys.enter)
      const sent = await session.waitFor("reviewed it")
      expect(sent).toContain("› /review a.txt")
      expect(sent).toContain(`(command file ${join(cwd, ".claude", "commands", "review.md")})`)
      session.type("/help")
      session.type(keys.enter)
      await session.waitFor("/review [file]  Review a file with care (project)")
      const sessionId = /── session (ses_\S+)/.exec(session.all())?.[1] ?? ""
      const result = await runCli(["sessions", "export", sessionId], { env: { CUSTOM_AGENT_HOME: home } })
      const [message] = eventsOf(parseEventLines(result.stdout), "user.message")
      expect(message?.payload.content).toBe("Review a.txt carefully.")
      expect(message?.payload.command).toMatchObject({ name: "review", arguments: "a.txt", source: "project" })
    } finally {
      session.kill()
    }
  })
})
