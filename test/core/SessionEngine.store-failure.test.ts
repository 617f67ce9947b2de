import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Layer, Ref, Stream } from "effect"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { engineLayer, replayAll, types } from "../support/engine-harness.js"
import * as FailingStore from "../support/failing-store.js"
import { storeCases } from "../support/store-cases.js"

const twoChunks: Script = { responses: [{ chunks: [{ text: "a" }, { text: "b" }] }, "again"] }

for (const store of storeCases) {
  describe(`SessionEngine when the ${store.name} store fails`, () => {
    const provide = (script?: Script) => {
      const failing = FailingStore.around(store.fresh())
      return Effect.provide(engineLayer(failing, script).pipe(Layer.provideMerge(failing)))
    }

    it.effect("a failed append fails the turn with a typed error, the sequence does not advance, the retry reuses the number", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const control = yield* FailingStore.FailingStoreControl
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        const sessionId = header.sessionId
        yield* control.failNextAppends(1)
        const exit = yield* Effect.exit(Stream.runCollect(engine.runTurn({ sessionId, content: "x" })))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(exit._tag === "Failure" ? String(exit.cause) : "").toContain("StoreFailure")
        expect((yield* engine.getSession(sessionId)).lastSequence).toBe(1)
        expect((yield* engine.getSession(sessionId)).running).toBe(false)
        const retry = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId, content: "x" })))
        expect(retry[0]).toMatchObject({ type: "turn.started", sequence: 2 })
        const log = yield* replayAll(sessionId)
        expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1))
      }).pipe(provide(twoChunks)))

    it.effect("a failure mid-turn fails the stream, closes the turn in the log when the store lets it, and emitted equals stored", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const control = yield* FailingStore.FailingStoreControl
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        const sessionId = header.sessionId
        const emitted = yield* Ref.make<Array<AgentEvent>>([])
        // turn.started and user.message are stored, the next append fails; closing the turn
        // then succeeds at that number.
        yield* control.failAppendsAfter(2, 1)
        const error = yield* engine.runTurn({ sessionId, content: "x" }).pipe(
          Stream.runForEach((e) => Ref.update(emitted, (all) => [...all, e])),
          Effect.flip
        )
        expect(error._tag).toBe("StoreFailure")
        const log = yield* replayAll(sessionId)
        expect(types(log)).toEqual(["session.created", "turn.started", "user.message", "turn.completed"])
        expect(log.at(-1)?.payload).toMatchObject({ stopReason: "error", errorCode: "store_failure" })
        expect(yield* Ref.get(emitted)).toEqual(log.slice(1))
      }).pipe(provide(twoChunks)))

    it.effect("when closing fails too, the turn stays open in the log and the next turn closes it first", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const control = yield* FailingStore.FailingStoreControl
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        const sessionId = header.sessionId
        yield* control.failAppendsAfter(2, 2)
        yield* engine.runTurn({ sessionId, content: "x" }).pipe(
          Stream.runDrain,
          Effect.flip
        )
        expect(types(yield* replayAll(sessionId))).toEqual(["session.created", "turn.started", "user.message"])
        const next = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId, content: "y" })))
        expect(next[0]).toMatchObject({ type: "turn.completed", sequence: 4, payload: { errorCode: "interrupted" } })
        expect(next.at(-1)?.payload).toEqual({ stopReason: "final" })
      }).pipe(provide(twoChunks)))
  })
}
