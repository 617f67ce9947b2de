import { afterAll, describe, expect, it } from "@effect/vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import type { SessionListItem } from "../../src/domain/host.js"
import { renameSessions, sessionsOf } from "../../src/domain/session-rename.js"
import { runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"
import { reviewerProject } from "../support/reviewer-project.js"

const temps = makeTemp()
afterAll(temps.cleanup)

describe("sessions export and import with subagents", () => {
  it("exports a session with its subagent's session, imports both, refuses a second import naming --as-new, and --as-new keeps the link under new ids", { timeout: 120_000 }, async () => {
    const { project, script, env } = reviewerProject(temps.dir, "export-sub")
    const run = await runCli(["run", "--script", script, "get a review"], { env, cwd: project })
    expect(run.code, run.stderr).toBe(0)
    const parentId = /session (ses_\w+)\s*$/.exec(run.stderr.trim())?.[1] ?? ""

    const exported = await runCli(["sessions", "export", parentId], { env })
    expect(exported.code, exported.stderr).toBe(0)
    const events = parseEventLines(exported.stdout)
    const sessions = sessionsOf(events)
    expect(sessions.map((s) => s.sessionId)[0]).toBe(parentId)
    expect(sessions).toHaveLength(2)
    const childId = sessions[1]?.sessionId ?? ""
    const only = await runCli(["sessions", "export", parentId, "--no-subagents"], { env })
    expect(sessionsOf(parseEventLines(only.stdout)).map((s) => s.sessionId)).toEqual([parentId])

    const file = join(project, "export.jsonl")
    writeFileSync(file, exported.stdout)
    const elsewhere = { CUSTOM_AGENT_HOME: temps.dir("export-sub-other-"), CUSTOM_AGENT_CONFIG_HOME: env.CUSTOM_AGENT_CONFIG_HOME }
    const imported = await runCli(["sessions", "import", file], { env: elsewhere })
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toMatch(new RegExp(`^imported session ${parentId} \\(\\d+ events\\)\\n {2}and its subagent's session ${childId} \\(\\d+ events\\)\\n$`))

    const again = await runCli(["sessions", "import", file], { env: elsewhere })
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`session ${parentId} is already in this store; nothing was imported (--as-new`)

    const copy = await runCli(["sessions", "import", file, "--as-new"], { env: elsewhere })
    expect(copy.code, copy.stderr).toBe(0)
    const newIds = [...copy.stdout.matchAll(/session (ses_\w+) \(from (ses_\w+)\)/g)].map((m) => [m[1], m[2]])
    expect(newIds.map(([, from]) => from)).toEqual([parentId, childId])
    const [newParent, newChild] = newIds.map(([id]) => id ?? "")
    expect(newParent).not.toBe(parentId)
    const listed: ReadonlyArray<SessionListItem> = JSON.parse((await runCli(["sessions", "list", "--all", "--json"], { env: elsewhere })).stdout)
    expect(listed.find((s) => s.sessionId === newChild)?.parentSessionId).toBe(newParent)
    const newLog = parseEventLines((await runCli(["sessions", "export", newParent ?? ""], { env: elsewhere })).stdout)
    expect(newLog.find((e) => e.type === "subagent.started")?.payload).toMatchObject({ childSessionId: newChild })
  })

  it("renaming keeps references to sessions the mapping does not name", () => {
    const created = {
      type: "session.created" as const,
      schemaVersion: 1 as const,
      id: "evt_1",
      sessionId: "ses_child",
      sequence: 1,
      timestamp: "2026-12-01T10:00:00.000Z",
      payload: { cwd: "/w", client: "test", parent: { sessionId: "ses_elsewhere", turnId: "turn_1", toolCallId: "c", agent: "a", depth: 1 } }
    }
    const [renamed] = renameSessions([created], new Map([["ses_child", "ses_new"]]))
    expect(renamed).toMatchObject({ sessionId: "ses_new", payload: { parent: { sessionId: "ses_elsewhere" } } })
  })
})
