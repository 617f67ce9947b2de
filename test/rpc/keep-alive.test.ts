import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, testClientLayer } from "../support/rpc-test-client.js"

const token = "test-token-0123456789"
const web = makeWebRoot()
afterAll(web.remove)

const Live = testClientLayer(token).pipe(
  Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1", keepAlive: "100 millis" })),
  Layer.provide(hostTestLayer(MemoryStore.layer, { responses: ["hi"] })),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

layer(Live, { timeout: 30_000, excludeTestServices: true })("subscriptions over the network keep their connection alive", (it) => {
  it.effect("an idle subscription gets KeepAlive frames at the interval, after its baseline and events", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const { sessionId } = yield* client.CreateSession({ cwd: "/tmp" })
      const frames = Chunk.toArray(yield* client.Subscribe({ sessionId, afterSequence: 0 }).pipe(Stream.take(4), Stream.runCollect))
      expect(frames[0]?._tag).toBe("Baseline")
      expect(frames[1]).toMatchObject({ _tag: "Event", event: { type: "session.created" } })
      // Nothing else happens in the session: what follows only keeps the connection open.
      expect(frames.slice(2).map((frame) => frame._tag)).toEqual(["KeepAlive", "KeepAlive"])
    }))

  it.effect("a prompt's events still arrive in order with keep-alives between them", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const { sessionId } = yield* client.CreateSession({ cwd: "/tmp" })
      const collected = yield* client.Subscribe({ sessionId, afterSequence: 0 }).pipe(
        Stream.tap((frame) => (frame._tag === "Baseline" ? Effect.asVoid(client.Prompt({ sessionId, content: "hello" })) : Effect.void)),
        Stream.takeUntil((frame) => frame._tag === "Event" && frame.event.type === "turn.completed"),
        Stream.runCollect
      )
      const sequences = Chunk.toArray(collected).flatMap((frame) => (frame._tag === "Event" ? [frame.event.sequence] : []))
      expect(sequences).toEqual(sequences.map((_, i) => i + 1))
    }))
})
