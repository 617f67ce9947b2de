import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Stream } from "effect"
import * as MemoryStore from "../../../src/layers/event-store/memory.js"
import { EventStore } from "../../../src/services/EventStore.js"
import * as FailingStore from "../../support/failing-store.js"
import { delta, range } from "./fixtures.js"

describe("failing-store test double", () => {
  it.effect("fails exactly the next N appends with StoreFailure, writing nothing, then passes through", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      const control = yield* FailingStore.FailingStoreControl
      yield* store.appendAll(range("ses_a", 1, 2))
      yield* control.failNextAppends(2)
      expect(yield* control.pendingFailures).toBe(2)
      expect(yield* Effect.flip(store.append(delta("ses_a", 3)))).toBe(FailingStore.injectedFailure)
      expect(yield* Effect.flip(store.appendAll(range("ses_a", 3, 4)))).toMatchObject({ _tag: "StoreFailure" })
      expect(yield* control.pendingFailures).toBe(0)
      expect(yield* store.head("ses_a")).toEqual(Option.some(2))
      // The retry reuses the number, as after a real failed append.
      yield* store.append(delta("ses_a", 3))
      const events = yield* Stream.runCollect(store.replay("ses_a"))
      expect(Chunk.toArray(events)).toEqual(range("ses_a", 1, 3))
    }).pipe(Effect.provide(FailingStore.around(MemoryStore.layer))))

  it.effect("without injected failures it is the wrapped store, conflicts included", () =>
    Effect.gen(function* () {
      const store = yield* EventStore
      yield* store.appendAll(range("ses_a", 1, 2))
      expect(yield* Effect.flip(store.append(delta("ses_a", 2)))).toMatchObject({ _tag: "SequenceConflict" })
      expect((yield* store.listSessions).map((s) => s.sessionId)).toEqual(["ses_a"])
    }).pipe(Effect.provide(FailingStore.around(MemoryStore.layer))))
})
