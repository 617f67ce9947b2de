import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { sessionsOf } from "../../../src/domain/session-rename.js"
import { runCli } from "../../support/cli.js"
import { parseEventLines } from "../../support/events.js"
import { keys, openOnPty } from "../../support/pty-screen.js"
import { reviewerProject } from "../../support/reviewer-project.js"
import { makeTemp } from "../../support/temp-dirs.js"
import { sessionIdOn } from "../../support/tui-session.js"

const temps = makeTemp()
afterAll(temps.cleanup)

describe("/export in the interactive session", () => {
  it("writes the session with its subagent's session, as sessions export does; --no-subagents only its own", { timeout: 90_000 }, async () => {
    const { home, project, script, env } = reviewerProject(temps.dir, "tui-export")
    const session = openOnPty(["--script", script], { cwd: project, home, cols: 120, env })
    try {
      await session.waitFor("custom-agent")
      session.type("get a review")
      session.type(keys.enter)
      await session.waitFor(/^Reviewed\./m)
      const parentId = sessionIdOn(session.all())
      session.type("/export tree.jsonl")
      session.type(keys.enter)
      await session.waitFor("(with 1 subagent session)")
      session.type("/export --no-subagents own.jsonl")
      session.type(keys.enter)
      await session.waitFor(`events to ${join(project, "own.jsonl")}`)

      const tree = readFileSync(join(project, "tree.jsonl"), "utf8")
      const sessions = sessionsOf(parseEventLines(tree)).map((s) => s.sessionId)
      expect(sessions).toHaveLength(2)
      expect(sessions[0]).toBe(parentId)
      // Line for line what the command writes.
      const command = await runCli(["sessions", "export", parentId], { env })
      expect(command.code, command.stderr).toBe(0)
      expect(tree).toBe(command.stdout)
      expect(sessionsOf(parseEventLines(readFileSync(join(project, "own.jsonl"), "utf8"))).map((s) => s.sessionId)).toEqual([parentId])
    } finally {
      session.kill()
    }
  })
})
