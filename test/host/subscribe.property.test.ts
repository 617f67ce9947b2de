import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck, Fiber, Option, Stream, TestClock } from "effect"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { EventStore } from "../../src/services/EventStore.js"
import { replayAll } from "../support/engine-harness.js"
import { hostTestLayer } from "../support/host-harness.js"
import { yieldingStore } from "../support/yielding-store.js"

const plan = {
  chunks: FastCheck.integer({ min: 1, max: 25 }),
  /** 0: the turn commits as fast as it can, racing the subscribers' switch-over. */
  delayMs: FastCheck.constantFrom(0, 10),
  subscribers: FastCheck.array(
    FastCheck.record({
      atTick: FastCheck.integer({ min: 0, max: 30 }),
      yields: FastCheck.integer({ min: 0, max: 40 }),
      back: FastCheck.integer({ min: 0, max: 12 })
    }),
    { minLength: 1, maxLength: 6 }
  )
}

interface Reader {
  readonly fiber: Fiber.RuntimeFiber<void, unknown>
  readonly got: Array<number>
  after: number
}

describe("AgentHost.subscribe", () => {
  it.effect.prop(
    "subscribing at any moment, from any earlier sequence, yields every later sequence exactly once, in order",
    plan,
    ({ chunks, delayMs, subscribers }) =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const store = yield* EventStore
        const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
        yield* host.prompt({ sessionId, content: "go" })
        const readers: Array<Reader> = []
        let clock = 0
        for (const { atTick, back, yields } of [...subscribers].sort((a, b) => a.atTick - b.atTick)) {
          // Readers at the same tick are forked together and race the turn's commits.
          if (atTick > clock) yield* TestClock.adjust(`${(atTick - clock) * 10} millis`)
          clock = atTick
          const got: Array<number> = []
          const reader: { after: number } = { after: 0 }
          const fiber = yield* Effect.gen(function* () {
            for (let i = 0; i < yields; i++) yield* Effect.yieldNow()
            reader.after = Math.max(0, Option.getOrElse(yield* store.head(sessionId), () => 0) - back)
            yield* host.subscribe(sessionId, reader.after).pipe(
              Stream.runForEach((f) => Effect.sync(() => (f._tag === "Event" ? got.push(f.event.sequence) : undefined)))
            )
          }).pipe(Effect.fork)
          readers.push(Object.assign(reader, { fiber, got }))
        }
        yield* TestClock.adjust("1 second")
        // Let every reader drain what it was sent, live frames included, then stop listening.
        yield* Effect.repeatN(Effect.yieldNow(), 500)
        const log = yield* replayAll(sessionId)
        expect(log.at(-1)?.type).toBe("turn.completed")
        for (const { fiber, got, after } of readers) {
          yield* Fiber.interrupt(fiber)
          expect(got).toEqual(log.filter((e) => e.sequence > after).map((e) => e.sequence))
        }
      }).pipe(
        Effect.provide(
          hostTestLayer(yieldingStore(MemoryStore.layer), {
            responses: [{ chunks: Array.from({ length: chunks }, (_, i) => ({ text: `c${i}` })), delayMs }]
          })
        )
      ),
    { fastCheck: { numRuns: 40 } }
  )
})
