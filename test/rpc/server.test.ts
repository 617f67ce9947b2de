import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Stream } from "effect"
import type { HostFrame } from "../../src/domain/host.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { AgentClient } from "../../src/rpc/client.js"
import { AgentRpcs } from "../../src/rpc/group.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, testClientLayer } from "../support/rpc-test-client.js"

const token = "test-token-0123456789"
const web = makeWebRoot()
const webRoot = web.dir
afterAll(web.remove)

const ClientLive = testClientLayer(token)

const script = {
  responses: [
    { chunks: ["Hel", "lo ", "the", "re"].map((text) => ({ text })), delayMs: 5 },
    "second answer"
  ]
}

const E2E = ClientLive.pipe(
  Layer.provideMerge(serverLayer({ token, webRoot, boundHost: "127.0.0.1" })),
  Layer.provide(hostTestLayer(MemoryStore.layer, script)),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

const untilTurnDone = (frames: Stream.Stream<HostFrame, unknown>) =>
  frames.pipe(
    Stream.takeUntil((f) => f._tag === "Event" && f.event.type === "turn.completed"),
    Stream.runCollect,
    Effect.map(Chunk.toArray)
  )

const raw = (request: HttpClientRequest.HttpClientRequest) =>
  Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(request)).pipe(
    Effect.flatMap((response) => Effect.map(response.text, (body) => ({ status: response.status, body })))
  )

const rpcBody = JSON.stringify({ _tag: "Request", id: "1", tag: "ListSessions", payload: {}, headers: [] }) + "\n"

layer(E2E, { timeout: 30_000, excludeTestServices: true })("the RPC API over real HTTP", (it) => {
  it.effect("a typed client runs a turn and streams it; a reconnect resumes from a sequence", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const session = yield* client.CreateSession({ cwd: "/work" })
      expect(session.client).toBe("rpc")
      const watching = yield* untilTurnDone(client.Subscribe({ sessionId: session.sessionId })).pipe(Effect.fork)
      const receipt = yield* client.Prompt({ sessionId: session.sessionId, content: "hello" })
      expect(receipt._tag).toBe("Started")
      const frames = yield* Fiber.join(watching)
      expect(frames[0]?._tag).toBe("Baseline")
      const events = frames.flatMap((f) => (f._tag === "Event" ? [f.event] : []))
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1))
      const text = events.map((e) => (e.type === "model.delta" ? e.payload.text : "")).join("")
      expect(text).toBe("Hello there")
      // Resume from the middle: the rest, nothing doubled.
      const resumed = yield* untilTurnDone(client.Subscribe({ sessionId: session.sessionId, afterSequence: 4 }))
      expect(resumed.flatMap((f) => (f._tag === "Event" ? [f.event.sequence] : []))).toEqual(events.slice(4).map((e) => e.sequence))
      const exported = Chunk.toArray(yield* Stream.runCollect(client.ExportSession({ sessionId: session.sessionId })))
      expect(exported).toEqual(events)
      const listed = yield* client.ListSessions()
      expect(listed.map((s) => s.sessionId)).toContain(session.sessionId)
    }))

  it.effect("typed errors travel: unknown session, unanswerable permission, unknown queued message", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const notFound = yield* client.GetSession({ sessionId: "ses_nope" }).pipe(Effect.flip)
      expect(notFound._tag).toBe("SessionNotFound")
      const streamError = yield* client.Subscribe({ sessionId: "ses_nope" }).pipe(Stream.runDrain, Effect.flip)
      expect(streamError._tag).toBe("SessionNotFound")
      const permission = yield* client
        .RespondPermission({ sessionId: "ses_nope", toolCallId: "call_1", answer: { decision: "allow", scope: "once" } })
        .pipe(Effect.flip)
      expect(permission._tag).toBe("PermissionNotPending")
      const session = yield* client.CreateSession({ cwd: "/work" })
      const queue = yield* client.EditQueue({ sessionId: session.sessionId, messageId: "msg_x", action: { _tag: "Delete" } }).pipe(Effect.flip)
      expect(queue._tag).toBe("QueuedMessageNotFound")
    }))

  it.effect("compaction and memory review over the API: typed results and errors", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const session = yield* client.CreateSession({ cwd: "/work" })
      expect(yield* client.Compact({ sessionId: session.sessionId })).toEqual({ compacted: false })
      expect(yield* client.ListMemoryCandidates()).toEqual([])
      expect(yield* client.ListMemories({})).toEqual([])
      const unknown = yield* client.ReviewMemory({ candidateId: "mem_nope", decision: "approve" }).pipe(Effect.flip)
      expect(unknown._tag).toBe("MemoryNotFound")
      const gone = yield* client.DeleteMemory({ memoryId: "mem_nope" }).pipe(Effect.flip)
      expect(gone._tag).toBe("MemoryNotFound")
      const attach = yield* client.Prompt({ sessionId: session.sessionId, content: "read it", attachments: ["file:///nope"] }).pipe(Effect.flip)
      expect(attach._tag).toBe("McpError")
    }))

  it.effect("a missing or wrong token is refused with 401", () =>
    Effect.gen(function* () {
      const none = yield* raw(HttpClientRequest.post("/rpc").pipe(HttpClientRequest.bodyText(rpcBody, "application/ndjson")))
      expect(none.status).toBe(401)
      expect(JSON.parse(none.body)).toMatchObject({ _tag: "Unauthorized" })
      const wrong = yield* raw(
        HttpClientRequest.post("/rpc").pipe(HttpClientRequest.bearerToken("nope"), HttpClientRequest.bodyText(rpcBody, "application/ndjson"))
      )
      expect(wrong.status).toBe(401)
      const right = yield* raw(
        HttpClientRequest.post("/rpc").pipe(HttpClientRequest.bearerToken(token), HttpClientRequest.bodyText(rpcBody, "application/ndjson"))
      )
      expect(right.status).toBe(200)
    }))

  it.effect("a foreign Origin or Host is refused with 403, even with the token", () =>
    Effect.gen(function* () {
      const foreign = yield* raw(
        HttpClientRequest.post("/rpc").pipe(
          HttpClientRequest.bearerToken(token),
          HttpClientRequest.setHeader("origin", "https://evil.example"),
          HttpClientRequest.bodyText(rpcBody, "application/ndjson")
        )
      )
      expect(foreign.status).toBe(403)
      expect(JSON.parse(foreign.body)).toMatchObject({ _tag: "ForbiddenOrigin" })
      const rebinding = yield* raw(HttpClientRequest.get("/").pipe(HttpClientRequest.setHeader("host", "evil.example:80")))
      expect(rebinding.status).toBe(403)
      expect(JSON.parse(rebinding.body)).toMatchObject({ _tag: "ForbiddenHost" })
    }))

  it.effect("malformed and oversized bodies get a typed error and the server keeps serving", () =>
    Effect.gen(function* () {
      const post = (body: string) =>
        raw(HttpClientRequest.post("/rpc").pipe(HttpClientRequest.bearerToken(token), HttpClientRequest.bodyText(body, "application/ndjson")))
      const malformed = yield* post("{not json\n")
      expect(malformed.status).toBe(400)
      expect(JSON.parse(malformed.body)).toMatchObject({ _tag: "MalformedRequest" })
      const notObject = yield* post("[1,2]\n")
      expect(JSON.parse(notObject.body)).toMatchObject({ _tag: "MalformedRequest", message: "line 1: not a JSON object" })
      const huge = yield* post(JSON.stringify({ _tag: "Request", id: "2", tag: "Prompt", payload: { sessionId: "s", content: "x".repeat(5_000_000) }, headers: [] }))
      expect(huge.status).toBe(413)
      expect(JSON.parse(huge.body)).toMatchObject({ _tag: "PayloadTooLarge" })
      // A well-formed request with a payload that does not fit the schema gets an RPC-level failure.
      const badPayload = yield* post(JSON.stringify({ _tag: "Request", id: "3", tag: "GetSession", payload: { sessionId: 42 }, headers: [] }) + "\n")
      expect(badPayload.status).toBe(200)
      expect(badPayload.body).toContain("Expected string")
      const client = yield* AgentClient
      expect(Array.isArray(yield* client.ListSessions())).toBe(true)
    }))

  it.effect("the web timeline is served from the same origin", () =>
    Effect.gen(function* () {
      const page = yield* raw(HttpClientRequest.get("/"))
      expect(page.status).toBe(200)
      expect(page.body).toContain("custom-agent")
      const deep = yield* raw(HttpClientRequest.get("/sessions/ses_1"))
      expect(deep.body).toContain("custom-agent")
    }))
})

describe("the RPC group", () => {
  it("names every operation a client needs", () => {
    expect([...AgentRpcs.requests.keys()].sort()).toEqual(
      ["ArchiveSession", "Cancel", "Compact", "CreateSession", "DeleteMemory", "DeleteSession", "EditQueue", "ExportSession", "ForkSession", "GetProjectTrust", "GetSession", "ImportSession", "ListCommands", "ListMemories", "ListMemoryCandidates", "ListRememberedAnswers", "ListSessions", "Prompt", "Redo", "RenameSession", "RespondPermission", "RevokeRememberedAnswer", "ReviewMemory", "Rewind", "SetMode", "SetModel", "Subscribe", "TrustProject", "WatchSessions"].sort()
    )
  })
})
