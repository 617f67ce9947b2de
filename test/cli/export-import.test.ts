import { afterAll, describe, expect, it } from "vitest"
import { Effect, Schema } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { jsonlDirectory, sqliteFile } from "../../src/app/locations.js"
import { AgentEvent } from "../../src/domain/events.js"
import * as JsonlStore from "../../src/layers/event-store/jsonl.js"
import * as SqliteStore from "../../src/layers/event-store/sqlite.js"
import { runCli, startServer, stop } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const decodeEvent = Schema.decodeUnknownSync(AgentEvent)

type Draft = { readonly type: string; readonly turnId?: string; readonly payload: unknown }

const logOf = (sessionId: string, drafts: ReadonlyArray<Draft>) =>
  drafts.map((draft, i) =>
    decodeEvent({ id: `evt_${sessionId}_${i + 1}`, schemaVersion: 1, sessionId, sequence: i + 1, timestamp: "2026-01-01T00:00:00.000Z", ...draft })
  )

const header: Draft = { type: "session.created", payload: { cwd: "/w", client: "test" } }
const turnStart: ReadonlyArray<Draft> = [
  { type: "turn.started", turnId: "turn_1", payload: { promptPreview: "hi" } },
  { type: "user.message", turnId: "turn_1", payload: { content: "hi", mode: "queue" } }
]
const turnEnd: Draft = { type: "turn.completed", turnId: "turn_1", payload: { stopReason: "final" } }

const jsonlOf = (events: ReadonlyArray<AgentEvent>) => events.map((e) => `${JSON.stringify(e)}\n`).join("")

const fileWith = (text: string) => {
  const file = join(temp.dir("cli-files-"), "session.jsonl")
  writeFileSync(file, text)
  return file
}

/** A data dir whose store holds `events` as a process that died mid-turn left them. */
const dataDirWith = (store: "sqlite" | "jsonl", events: ReadonlyArray<AgentEvent>) => {
  const home = temp.dir("cli-home-")
  const open =
    store === "sqlite" ? SqliteStore.make({ filename: sqliteFile(home) }) : JsonlStore.make({ directory: jsonlDirectory(home), truncatedLastLine: "skip" })
  return Effect.runPromise(Effect.scoped(Effect.flatMap(open, (s) => s.appendAll(events)))).then(() => home)
}

describe("sessions import", () => {
  it("a line over the limit stops the import at once with its number, exit 1, nothing written (the limit lowered for the test)", async () => {
    const events = logOf("ses_long", [header, ...turnStart, turnEnd])
    const long = events.map((e, i) => (i === 2 && e.type === "user.message" ? { ...e, payload: { ...e.payload, content: "x".repeat(1536 * 1024) } } : e))
    const file = fileWith(jsonlOf(long))
    const home = temp.dir("cli-home-")
    const refused = await runCli(["sessions", "import", file, "--max-line-mib", "1"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(`custom-agent: ${file}: line 3 is longer than 1 MiB, the most one event may take (--max-line-mib); nothing was imported\n`)
    expect((await runCli(["sessions", "list"], { env: { CUSTOM_AGENT_HOME: home } })).stdout).toContain("no sessions yet")
    // Under the default limit (64 MiB) the same file is fine.
    expect((await runCli(["sessions", "import", file], { env: { CUSTOM_AGENT_HOME: home } })).code).toBe(0)
  })

  it("a log that breaks an invariant is refused naming its line; --unverified imports it, marked in its header", async () => {
    const broken = logOf("ses_broken", [header, ...turnStart, { type: "tool.started", turnId: "turn_1", payload: { toolCallId: "c", name: "shell" } }, turnEnd])
    const file = fileWith(jsonlOf(broken))
    const home = temp.dir("cli-home-")
    const refused = await runCli(["sessions", "import", file], { env: { CUSTOM_AGENT_HOME: home } })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(
      `custom-agent: ${file}: line 4: tool.started for call c without an earlier permission.resolved allowing it (--unverified imports it anyway, marked as unverified); nothing was imported\n`
    )
    const open = await runCli(["sessions", "import", fileWith(jsonlOf(logOf("ses_open", [header, ...turnStart])))], { env: { CUSTOM_AGENT_HOME: home } })
    expect(open.stderr).toContain("line 2: turn turn_1 is never closed (no turn.completed)")
    expect((await runCli(["sessions", "list"], { env: { CUSTOM_AGENT_HOME: home } })).stdout).toContain("no sessions yet")

    const imported = await runCli(["sessions", "import", file, "--unverified"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(imported.code, imported.stderr).toBe(0)
    expect(imported.stdout).toBe("imported session ses_broken (5 events)\n")
    expect(imported.stderr).toBe(
      "custom-agent: imported unverified, marked so in its header: event 4: tool.started for call c without an earlier permission.resolved allowing it\n"
    )
    const exported = parseEventLines((await runCli(["sessions", "export", "ses_broken"], { env: { CUSTOM_AGENT_HOME: home } })).stdout)
    expect(exported[0]?.payload).toEqual({
      cwd: "/w",
      client: "test",
      unverifiedImport: { problem: "event 4: tool.started for call c without an earlier permission.resolved allowing it" }
    })
    expect(exported.slice(1, -1)).toEqual(broken.slice(1))
    // Then the import's own reset: the session starts in default mode whatever the file recorded.
    expect(exported.slice(-1)).toMatchObject([{ sequence: broken.length + 1, type: "session.mode_changed", payload: { mode: "default", by: "import" } }])
  })

  it("what no store can hold is refused even --unverified: a gap, a hostile session id", async () => {
    const home = temp.dir("cli-home-")
    const gapped = logOf("ses_gap", [header, ...turnStart, turnEnd]).filter((e) => e.sequence !== 2)
    const gap = await runCli(["sessions", "import", fileWith(jsonlOf(gapped)), "--unverified"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(gap.code).toBe(1)
    expect(gap.stderr).toContain("line 2: expected sequence 2, found 3; nothing was imported")
    for (const store of ["sqlite", "jsonl"]) {
      const hostile = await runCli(["sessions", "import", fileWith(jsonlOf(logOf("../../escaped", [header, ...turnStart, turnEnd]))), "--unverified", "--store", store], {
        env: { CUSTOM_AGENT_HOME: home }
      })
      expect(hostile.code).toBe(1)
      expect(hostile.stderr).toContain('line 1: invalid session id "../../escaped": a session id is 1 to 200 letters')
    }
    const usage = await runCli(["sessions", "export", "../../escaped"], { env: { CUSTOM_AGENT_HOME: home } })
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('invalid session id "../../escaped": a session id is 1 to 200 letters')
  })
})

describe("sessions export of a session a dead process left mid-turn", () => {
  for (const store of ["sqlite", "jsonl"] as const) {
    it(`closes the turn the way the server's ExportSession does: the same log, locally and over RPC (${store})`, { timeout: 60_000 }, async () => {
      const crashed = logOf("ses_crashed", [header, ...turnStart])
      const local = await dataDirWith(store, crashed)
      const served = await dataDirWith(store, crashed)

      const exported = await runCli(["sessions", "export", "ses_crashed", "--store", store], { env: { CUSTOM_AGENT_HOME: local } })
      expect(exported.code, exported.stderr).toBe(0)
      const server = await startServer(["--data-dir", served, "--store", store])
      let remote: string
      try {
        const answer = await runCli(["sessions", "export", "ses_crashed", "--server", server.url], { env: { CUSTOM_AGENT_TOKEN: server.token } })
        expect(answer.code, answer.stderr).toBe(0)
        remote = answer.stdout
      } finally {
        await stop(server.child)
      }

      const fromCli = parseEventLines(exported.stdout)
      const fromRpc = parseEventLines(remote)
      // The closing event is made in each store: its id and time are its own, the rest is the same.
      const sameBut = (events: ReadonlyArray<AgentEvent>) => events.map((e) => ({ ...e, id: e.sequence > crashed.length ? "new" : e.id, timestamp: "" }))
      expect(sameBut(fromCli)).toEqual(sameBut(fromRpc))
      expect(fromCli.slice(0, crashed.length)).toEqual(crashed)
      expect(fromCli.slice(crashed.length)).toMatchObject([
        { type: "turn.completed", turnId: "turn_1", sequence: 4, payload: { stopReason: "error", errorCode: "interrupted" } }
      ])
      // Closed for good: the next export is the same, and the export imports as a verified log.
      expect((await runCli(["sessions", "export", "ses_crashed", "--store", store], { env: { CUSTOM_AGENT_HOME: local } })).stdout).toBe(exported.stdout)
      const again = await runCli(["sessions", "import", fileWith(exported.stdout)], { env: { CUSTOM_AGENT_HOME: temp.dir("cli-home-") } })
      expect(again.code, again.stderr).toBe(0)
      expect(again.stderr).toBe("")
    })
  }
})
