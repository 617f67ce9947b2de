import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Effect, Layer, Ref, Stream } from "effect"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { EventStore } from "../../src/services/EventStore.js"
import { engineLayer, replayAll, types } from "../support/engine-harness.js"
import * as FailingStore from "../support/failing-store.js"
import { storeCases } from "../support/store-cases.js"

/** The types of each append the engine made, in order. */
class Appends extends Context.Tag("test/Appends")<Appends, Ref.Ref<ReadonlyArray<ReadonlyArray<string>>>>() {}

const recording = <E, R>(store: Layer.Layer<EventStore, E, R>): Layer.Layer<EventStore | Appends, E, R> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const inner = yield* EventStore
      const appends = yield* Ref.make<ReadonlyArray<ReadonlyArray<string>>>([])
      const record = (events: ReadonlyArray<AgentEvent>) => Ref.update(appends, (all) => [...all, events.map((e) => e.type)])
      const store = EventStore.of({
        ...inner,
        append: (event) => Effect.zipRight(inner.append(event), record([event])),
        appendAll: (events) => Effect.zipRight(inner.appendAll(events), record(events))
      })
      return Context.make(EventStore, store).pipe(Context.add(Appends, appends))
    })
  ).pipe(Layer.provide(store))

// The scripted model gives a response's chunks as one chunk of the stream, then its completion.
const threeDeltas: Script = { responses: [{ chunks: [{ text: "a" }, { text: "b" }, { text: "c" }] }] }

for (const store of storeCases) {
  describe(`SessionEngine group commit, on the ${store.name} store`, () => {
    it.effect("what a model answer gives together is appended together, then published in order", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        const emitted = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "hi" })))
        const appends = yield* Ref.get(yield* Appends)
        expect(appends).toContainEqual(["model.delta", "model.delta", "model.delta"])
        expect(appends.flat()).toEqual(types(yield* replayAll(header.sessionId)))
        expect(emitted.filter((e) => e.type === "model.delta").map((e) => e.payload)).toEqual([{ text: "a" }, { text: "b" }, { text: "c" }])
        const log = yield* replayAll(header.sessionId)
        expect(emitted).toEqual(log.slice(1))
        expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1))
      }).pipe(Effect.provide(
        (() => {
          const stores = recording(store.fresh())
          return engineLayer(stores, threeDeltas).pipe(Layer.provideMerge(stores))
        })()
      )))

    it.effect("when a group's append fails none of its events is stored or published, and the turn is closed after the stored ones", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const control = yield* FailingStore.FailingStoreControl
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        // turn.started, user.message, session.renamed (the untitled session's first prompt names it),
        // context.source, context.built are stored; the deltas' append fails.
        yield* control.failAppendsAfter(5, 1)
        const emitted: Array<AgentEvent> = []
        const error = yield* engine.runTurn({ sessionId: header.sessionId, content: "hi" }).pipe(
          Stream.runForEach((event) => Effect.sync(() => void emitted.push(event))),
          Effect.flip
        )
        expect(error._tag).toBe("StoreFailure")
        const log = yield* replayAll(header.sessionId)
        expect(types(log)).toEqual(["session.created", "turn.started", "user.message", "session.renamed", "context.source", "context.built", "turn.completed"])
        expect(log.at(-1)?.payload).toMatchObject({ stopReason: "error", errorCode: "store_failure" })
        expect(emitted).toEqual(log.slice(1))
      }).pipe(Effect.provide(
        (() => {
          const failing = FailingStore.around(store.fresh())
          return engineLayer(failing, threeDeltas).pipe(Layer.provideMerge(failing))
        })()
      )))
  })
}
