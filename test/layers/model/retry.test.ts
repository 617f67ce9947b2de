import { describe, expect, it } from "@effect/vitest"
import { Cause, Deferred, Duration, Effect, Exit, Fiber, Option, Scope, Stream, TestClock } from "effect"
import { forEachPulled } from "../../../src/core/for-each-pulled.js"
import { ModelError } from "../../../src/domain/errors.js"
import type { ModelStreamEvent } from "../../../src/domain/model.js"
import { type AttemptBatch, AttemptFailure, type AttemptPull, modelAnswer } from "../../../src/layers/model/retry.js"
import type { Outcome } from "./helpers.js"

const failure = (retryable: boolean, retryAfter?: Duration.Duration) =>
  new AttemptFailure({
    error: new ModelError({ code: retryable ? "rate_limited" : "bad_request", message: "nope", status: retryable ? 429 : 400 }),
    retryable,
    ...(retryAfter === undefined ? {} : { retryAfter })
  })

const completed: ModelStreamEvent = { _tag: "Completed", stopReason: "final", usage: { inputTokens: 1, outputTokens: 1 } }

/**
 * An `open` whose attempts each hold a resource in their scope (`held()` counts those not
 * yet released) and read through the pull `pullOf` gives for the attempt's number (0-based).
 */
const holding = (pullOf: (attempt: number) => AttemptPull) => {
  let attempts = 0
  let held = 0
  const open = (scope: Scope.Scope) =>
    Effect.gen(function* () {
      held++
      yield* Scope.addFinalizer(scope, Effect.sync(() => held--))
      return pullOf(attempts++)
    })
  return { open, attempts: () => attempts, held: () => held }
}

/**
 * Attempts whose n-th run fails with `failures[n]` (after a first batch of `before`, when
 * given) and that succeed once the failures are used up.
 */
const flaky = (failures: ReadonlyArray<AttemptFailure>, before: ReadonlyArray<ModelStreamEvent> = []) => {
  const attempt = holding((n) => {
    const failed = failures[n]
    let reads = 0
    return Effect.suspend(() => {
      reads++
      if (failed === undefined) return Effect.succeed<AttemptBatch>({ events: [completed], done: true })
      if (reads === 1) return Effect.succeed<AttemptBatch>({ events: before, done: false })
      return Effect.fail(failed)
    })
  })
  return { ...attempt, stream: modelAnswer({ policy, preflight: Effect.void, open: attempt.open }) }
}

const policy = { maxAttempts: 4, baseDelay: "1 second", maxDelay: "30 seconds" } as const

type ForEach = (
  stream: Stream.Stream<ModelStreamEvent, ModelError>,
  f: (event: ModelStreamEvent) => Effect.Effect<void, "stop">
) => Effect.Effect<void, ModelError | "stop">

/** Any consumer reads the answer through effect's stream machinery; the engine reads the pull it carries. */
const readers: ReadonlyArray<{ readonly name: string; readonly forEach: ForEach }> = [
  { name: "read as a stream", forEach: (stream, f) => Stream.runForEach(stream, f) },
  { name: "read through the pull it carries, as the engine does", forEach: (stream, f) => forEachPulled(stream, f) }
]

describe.each(readers)("modelAnswer, $name", ({ forEach }) => {
  /** Reads a whole answer, keeping what it emitted before a failure. */
  const run = (stream: Stream.Stream<ModelStreamEvent, ModelError>): Effect.Effect<Outcome> =>
    Effect.gen(function* () {
      const events: Array<ModelStreamEvent> = []
      const exit = yield* Effect.exit(forEach(stream, (event) => Effect.sync(() => void events.push(event))))
      const failure = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
      if (Exit.isFailure(exit) && (failure === undefined || failure === "stop")) return yield* Effect.die(Cause.squash(exit.cause))
      return { events, error: failure === "stop" ? undefined : failure }
    })

  it.effect("retries with growing delays, and succeeds within the budget", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true), failure(true), failure(true)])
      const fiber = yield* Effect.fork(run(attempt.stream))
      yield* TestClock.adjust("100 millis")
      expect(attempt.attempts()).toBe(1)
      // Jitter keeps each delay within 80%..120% of 1s, 2s, 4s.
      yield* TestClock.adjust("1200 millis")
      expect(attempt.attempts()).toBe(2)
      yield* TestClock.adjust("2400 millis")
      expect(attempt.attempts()).toBe(3)
      yield* TestClock.adjust("4800 millis")
      const outcome = yield* Fiber.join(fiber)
      expect(attempt.attempts()).toBe(4)
      expect(outcome).toEqual({ events: [completed], error: undefined })
    }))

  it.effect("gives up after maxAttempts with the last error, saying how many attempts it made", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true), failure(true), failure(true), failure(true), failure(true)])
      const fiber = yield* Effect.fork(run(attempt.stream))
      yield* TestClock.adjust("1 minute")
      const outcome = yield* Fiber.join(fiber)
      expect(attempt.attempts()).toBe(4)
      expect(outcome.error?.code).toBe("rate_limited")
      expect(outcome.error?.status).toBe(429)
      expect(outcome.error?.message).toBe("nope (gave up after 4 attempts)")
    }))

  it.effect("does not retry a failure that is not retryable", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(false)])
      const outcome = yield* run(attempt.stream)
      expect(attempt.attempts()).toBe(1)
      expect(outcome.error?.message).toBe("nope")
    }))

  it.effect("does not retry once an event was emitted", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true)], [{ _tag: "TextDelta", text: "partial" }])
      const outcome = yield* run(attempt.stream)
      expect(attempt.attempts()).toBe(1)
      expect(outcome.events).toEqual([{ _tag: "TextDelta", text: "partial" }])
      expect(outcome.error?.code).toBe("rate_limited")
    }))

  it.effect("waits as long as the provider's retry-after when that is longer than the backoff", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true, Duration.seconds(10))])
      const fiber = yield* Effect.fork(run(attempt.stream))
      yield* TestClock.adjust("9 seconds")
      expect(attempt.attempts()).toBe(1)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect(attempt.attempts()).toBe(2)
    }))

  it.effect("caps a long retry-after at maxDelay", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true, Duration.hours(1))])
      const fiber = yield* Effect.fork(run(attempt.stream))
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.join(fiber)
      expect(attempt.attempts()).toBe(2)
    }))

  it.effect("retries a failure that comes after reads that gave nothing to emit", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true)])
      const fiber = yield* Effect.fork(run(attempt.stream))
      yield* TestClock.adjust("2 seconds")
      const outcome = yield* Fiber.join(fiber)
      expect(attempt.attempts()).toBe(2)
      expect(outcome).toEqual({ events: [completed], error: undefined })
    }))

  it.effect("releases a failed attempt's resources before the next one, and the last one's at the end", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true)])
      const fiber = yield* Effect.fork(run(attempt.stream))
      yield* TestClock.adjust("100 millis")
      expect(attempt.attempts()).toBe(1)
      expect(attempt.held()).toBe(0)
      yield* TestClock.adjust("2 seconds")
      yield* Fiber.join(fiber)
      expect(attempt.held()).toBe(0)
    }))

  it.effect("releases the attempt when the consumer is interrupted midway", () =>
    Effect.gen(function* () {
      const gate = yield* Deferred.make<void>()
      const attempt = holding(() => {
        let reads = 0
        return Effect.suspend(() =>
          ++reads === 1 ? Effect.succeed({ events: [{ _tag: "TextDelta", text: "a" }], done: false }) : Effect.never
        )
      })
      const fiber = yield* Effect.fork(
        forEach(modelAnswer({ policy, preflight: Effect.void, open: attempt.open }), () => Effect.asVoid(Deferred.succeed(gate, undefined)))
      )
      yield* Deferred.await(gate)
      expect(attempt.held()).toBe(1)
      yield* Fiber.interrupt(fiber)
      expect(attempt.held()).toBe(0)
    }))

  it.effect("releases the attempt when the consumer stops early", () =>
    Effect.gen(function* () {
      const attempt = holding(() => Effect.succeed({ events: [{ _tag: "TextDelta", text: "more" }], done: false }))
      let taken = 0
      const stopped = yield* Effect.exit(
        forEach(modelAnswer({ policy, preflight: Effect.void, open: attempt.open }), () => (++taken === 2 ? Effect.fail("stop") : Effect.void))
      )
      expect(stopped).toEqual(Exit.fail("stop"))
      expect(taken).toBe(2)
      expect(attempt.held()).toBe(0)
    }))

  it.effect("fails with the preflight's error without opening an attempt", () =>
    Effect.gen(function* () {
      const attempt = flaky([])
      const tooBig = new ModelError({ code: "context_overflow", message: "does not fit" })
      const outcome = yield* run(modelAnswer({ policy, preflight: Effect.fail(tooBig), open: attempt.open }))
      expect(attempt.attempts()).toBe(0)
      expect(outcome).toEqual({ events: [], error: tooBig })
    }))
})
