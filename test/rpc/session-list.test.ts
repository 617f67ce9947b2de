import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Rpc, RpcClient, RpcGroup, RpcSerialization } from "@effect/rpc"
import { afterAll, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Layer, Schedule, Schema, Stream } from "effect"
import { type SessionListFrame, SessionStatus } from "../../src/domain/host.js"
import { EngineFailure } from "../../src/rpc/group.js"
import { SessionWatchTiming } from "../../src/host/session-watch.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, postRaw, testClientLayer } from "../support/rpc-test-client.js"

const token = "test-token-0123456789"
const web = makeWebRoot()
afterAll(web.remove)

const E2E = testClientLayer(token).pipe(
  Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1" })),
  Layer.provide(
    hostTestLayer(MemoryStore.layer, { responses: ["hello back"] }).pipe(
      Layer.provide(Layer.succeed(SessionWatchTiming, { coalesce: "20 millis", poll: "100 millis", keepAlive: "200 millis" }))
    )
  ),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, check: (a: A) => boolean) =>
  effect.pipe(Effect.repeat({ until: check, schedule: Schedule.spaced("20 millis") }), Effect.timeout("5 seconds"))

const post = (tag: string, payload: unknown) => postRaw(token, tag, payload)

/** A session's line as clients before `lastStopReason` and `waitingQuestions` read it. */
const LineBeforeTheirTime = Schema.Struct({
  sessionId: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  lastSequence: Schema.Finite,
  running: Schema.Boolean,
  status: SessionStatus,
  archived: Schema.Boolean,
  cwd: Schema.optional(Schema.String),
  client: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  parentSessionId: Schema.optional(Schema.String)
})
class OldListing extends RpcGroup.make(Rpc.make("ListSessions", { success: Schema.Array(LineBeforeTheirTime), error: EngineFailure })) {}

/** An older client's ListSessions, over the same HTTP endpoint. */
const oldClientList = Effect.flatMap(RpcClient.make(OldListing), (old) => old.ListSessions()).pipe(
  Effect.provide(
    RpcClient.layerProtocolHttp({
      url: "",
      transformClient: HttpClient.mapRequest((r) => r.pipe(HttpClientRequest.appendUrl("/rpc"), HttpClientRequest.bearerToken(token)))
    }).pipe(Layer.provide(RpcSerialization.layerNdjson))
  ),
  Effect.scoped
)

layer(E2E, { timeout: 30_000, excludeTestServices: true })("the session list over the RPC API", (it) => {
  it.effect("RenameSession and ArchiveSession reach ListSessions; an unknown session and a bad title are refused", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const { sessionId } = yield* client.CreateSession({ cwd: "/work" })
      yield* client.RenameSession({ sessionId, title: "  Shipping  " })
      yield* client.ArchiveSession({ sessionId, archived: true, by: "web" })
      const listed = (yield* client.ListSessions()).find((line) => line.sessionId === sessionId)
      expect(listed).toMatchObject({ title: "Shipping", archived: true, status: "idle", running: false })
      const log = Chunk.toArray(yield* Stream.runCollect(client.ExportSession({ sessionId })))
      expect(log.slice(1).map((event) => [event.type, event.payload])).toEqual([
        ["session.renamed", { title: "Shipping", by: "rpc" }],
        ["session.archived", { archived: true, by: "rpc:web" }]
      ])

      expect((yield* Effect.flip(client.RenameSession({ sessionId: "ses_nope", title: "x" })))._tag).toBe("SessionNotFound")
      expect((yield* Effect.flip(client.ArchiveSession({ sessionId: "ses_nope", archived: true })))._tag).toBe("SessionNotFound")
      // The typed client will not send a blank title; the server refuses one sent anyway, and a too long one.
      expect(Exit.isFailure(yield* Effect.exit(client.RenameSession({ sessionId, title: "   " })))).toBe(true)
      expect(yield* post("RenameSession", { sessionId, title: "  " })).toContain("a title must not be blank")
      expect(yield* post("RenameSession", { sessionId, title: "x".repeat(201) })).toContain("a title has at most 200 characters")
      expect(Chunk.size(yield* Stream.runCollect(client.ExportSession({ sessionId })))).toBe(log.length)
    }))

  it.effect("a line says how the last turn ended, and a client from before that field still reads the list", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const { sessionId } = yield* client.CreateSession({ cwd: "/work" })
      yield* client.Prompt({ sessionId, content: "hello" })
      yield* eventually(client.ListSessions(), (lines) => lines.find((line) => line.sessionId === sessionId)?.status === "idle")
      const line = (yield* client.ListSessions()).find((l) => l.sessionId === sessionId)
      expect(line).toMatchObject({ status: "idle", lastStopReason: "final" })
      const old = (yield* oldClientList).find((l) => l.sessionId === sessionId)
      expect(old).toMatchObject({ sessionId, status: "idle", running: false })
      expect(old).not.toHaveProperty("lastStopReason")
    }))

  it.effect("WatchSessions: a Snapshot, then an Updated line on a rename and on a new session, and KeepAlive frames", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const { sessionId } = yield* client.CreateSession({ cwd: "/work", title: "Watched" })
      const frames: Array<SessionListFrame> = []
      const watching = yield* client.WatchSessions().pipe(
        Stream.runForEach((frame) => Effect.sync(() => frames.push(frame))),
        Effect.fork
      )
      yield* eventually(Effect.sync(() => frames.length), (n) => n > 0)
      const [snapshot] = frames
      expect(snapshot?._tag).toBe("Snapshot")
      expect(snapshot?._tag === "Snapshot" ? snapshot.sessions.find((line) => line.sessionId === sessionId) : undefined).toMatchObject({
        title: "Watched",
        status: "idle",
        archived: false
      })
      const updated = (id: string) =>
        Effect.sync(() => frames.flatMap((frame) => (frame._tag === "Updated" && frame.session.sessionId === id ? [frame.session] : [])))
      yield* client.RenameSession({ sessionId, title: "Renamed" })
      yield* eventually(updated(sessionId), (lines) => lines.at(-1)?.title === "Renamed")
      const fresh = yield* client.CreateSession({ cwd: "/new" })
      yield* eventually(updated(fresh.sessionId), (lines) => lines.length > 0)
      // The new session's first prompt: running, then idle and titled by it.
      yield* client.Prompt({ sessionId: fresh.sessionId, content: "say hello" })
      yield* eventually(updated(fresh.sessionId), (lines) => lines.at(-1)?.status === "idle" && lines.at(-1)?.title === "say hello")
      yield* eventually(Effect.sync(() => frames.filter((frame) => frame._tag === "KeepAlive").length), (n) => n > 0)
      yield* Fiber.interrupt(watching)
    }))

  it.effect("DeleteSession: gives the ids deleted, watchers get Removed, the list and the session are gone", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const { sessionId } = yield* client.CreateSession({ cwd: "/work", title: "Short-lived" })
      const frames: Array<SessionListFrame> = []
      const watching = yield* client.WatchSessions().pipe(Stream.runForEach((frame) => Effect.sync(() => frames.push(frame))), Effect.fork)
      yield* eventually(Effect.sync(() => frames.length), (n) => n > 0)
      expect(yield* client.DeleteSession({ sessionId, by: "web" })).toEqual([sessionId])
      yield* eventually(Effect.sync(() => frames.some((frame) => frame._tag === "Removed" && frame.sessionId === sessionId)), (seen) => seen)
      expect((yield* client.ListSessions()).map((line) => line.sessionId)).not.toContain(sessionId)
      expect((yield* Effect.flip(client.GetSession({ sessionId })))._tag).toBe("SessionNotFound")
      expect((yield* Effect.flip(client.DeleteSession({ sessionId })))._tag).toBe("SessionNotFound")
      yield* Fiber.interrupt(watching)
    }))
})
