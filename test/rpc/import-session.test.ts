import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Schema, Stream } from "effect"
import { AgentEvent } from "../../src/domain/events.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, testClientLayer } from "../support/rpc-test-client.js"

const token = "test-token-import-0123456789"
const web = makeWebRoot()
afterAll(web.remove)

const E2E = testClientLayer(token).pipe(
  Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1" })),
  Layer.provide(hostTestLayer(MemoryStore.layer)),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

const decodeEvent = Schema.decodeUnknownSync(AgentEvent)

/** A session whose turn starts a tool nobody allowed: a log this engine never writes. */
const brokenLog = (sessionId: string) =>
  [
    { type: "session.created", payload: { cwd: "/w", client: "elsewhere" } },
    { type: "turn.started", turnId: "t", payload: { promptPreview: "hi" } },
    { type: "tool.started", turnId: "t", payload: { toolCallId: "c", name: "shell" } },
    { type: "tool.completed", turnId: "t", payload: { toolCallId: "c", output: "", isError: false, durationMs: 1 } },
    { type: "turn.completed", turnId: "t", payload: { stopReason: "final" } }
  ].map((draft, i) => decodeEvent({ id: `evt_${i + 1}`, schemaVersion: 1, sessionId, sequence: i + 1, timestamp: "2026-01-01T00:00:00.000Z", ...draft }))

/** What an import writes after the file's events: history is not authority (`importTail`). */
const importReset = (sequence: number) => ({ sequence, type: "session.mode_changed", payload: { mode: "default", by: "import" } })

layer(E2E, { timeout: 30_000, excludeTestServices: true })("ImportSession checks the engine's invariants", (it) => {
  it.effect("a log that breaks them is refused naming the first violation; nothing is written", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const error = yield* Effect.flip(client.ImportSession({ events: brokenLog("ses_broken") }))
      expect(error).toMatchObject({
        _tag: "InvalidSessionLog",
        message: "event 3: tool.started for call c without an earlier permission.resolved allowing it"
      })
      expect((yield* client.ListSessions()).map((s) => s.sessionId)).not.toContain("ses_broken")
    }))

  it.effect("unverified, it is written with the violation in its header, and the answer names it", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const answer = yield* client.ImportSession({ events: brokenLog("ses_unverified"), unverified: true })
      expect(answer).toEqual({
        sessionId: "ses_unverified",
        events: 5,
        unverified: "event 3: tool.started for call c without an earlier permission.resolved allowing it"
      })
      const log = Chunk.toArray(yield* Stream.runCollect(client.ExportSession({ sessionId: "ses_unverified" })))
      expect(log[0]).toMatchObject({
        type: "session.created",
        payload: { client: "elsewhere", unverifiedImport: { problem: "event 3: tool.started for call c without an earlier permission.resolved allowing it" } }
      })
      expect(log.slice(1, -1)).toEqual(brokenLog("ses_unverified").slice(1))
      expect(log.slice(-1)).toMatchObject([importReset(6)])
    }))

  it.effect("a log the engine wrote is imported as it is, unmarked, then the import's reset to default mode", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const session = yield* client.CreateSession({ cwd: "/w" })
      const original = Chunk.toArray(yield* Stream.runCollect(client.ExportSession({ sessionId: session.sessionId })))
      const copy = original.map((event) => ({ ...event, sessionId: "ses_copy" }))
      expect(yield* client.ImportSession({ events: copy, unverified: true })).toEqual({ sessionId: "ses_copy", events: copy.length })
      const exported = Chunk.toArray(yield* Stream.runCollect(client.ExportSession({ sessionId: "ses_copy" })))
      expect(exported.slice(0, -1)).toEqual(copy)
      expect(exported.slice(-1)).toMatchObject([importReset(copy.length + 1)])
    }))
})
