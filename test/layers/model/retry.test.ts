import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Stream, TestClock } from "effect"
import { ModelError } from "../../../src/domain/errors.js"
import type { ModelStreamEvent } from "../../../src/domain/model.js"
import { AttemptFailure, withRetry } from "../../../src/layers/model/retry.js"
import { run } from "./helpers.js"

const failure = (retryable: boolean, retryAfter?: Duration.Duration) =>
  new AttemptFailure({
    error: new ModelError({ code: retryable ? "rate_limited" : "bad_request", message: "nope", status: retryable ? 429 : 400 }),
    retryable,
    ...(retryAfter === undefined ? {} : { retryAfter })
  })

const completed: ModelStreamEvent = { _tag: "Completed", stopReason: "final", usage: { inputTokens: 1, outputTokens: 1 } }

/** An attempt that fails with `failures[n]` on its n-th run, and succeeds once they are used up. */
const flaky = (failures: ReadonlyArray<AttemptFailure>, before: ReadonlyArray<ModelStreamEvent> = []) => {
  let attempts = 0
  const stream = Stream.suspend(() => {
    const failed = failures[attempts++]
    return failed === undefined ? Stream.make(completed) : Stream.concat(Stream.fromIterable(before), Stream.fail(failed))
  })
  return { stream, attempts: () => attempts }
}

const policy = { maxAttempts: 4, baseDelay: "1 second", maxDelay: "30 seconds" } as const

describe("withRetry", () => {
  it.effect("retries with growing delays, and succeeds within the budget", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true), failure(true), failure(true)])
      const fiber = yield* Effect.fork(run(withRetry(policy, attempt.stream)))
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
      const fiber = yield* Effect.fork(run(withRetry(policy, attempt.stream)))
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
      const outcome = yield* run(withRetry(policy, attempt.stream))
      expect(attempt.attempts()).toBe(1)
      expect(outcome.error?.message).toBe("nope")
    }))

  it.effect("does not retry once an event was emitted", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true)], [{ _tag: "TextDelta", text: "partial" }])
      const outcome = yield* run(withRetry(policy, attempt.stream))
      expect(attempt.attempts()).toBe(1)
      expect(outcome.events).toEqual([{ _tag: "TextDelta", text: "partial" }])
      expect(outcome.error?.code).toBe("rate_limited")
    }))

  it.effect("waits as long as the provider's retry-after when that is longer than the backoff", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true, Duration.seconds(10))])
      const fiber = yield* Effect.fork(run(withRetry(policy, attempt.stream)))
      yield* TestClock.adjust("9 seconds")
      expect(attempt.attempts()).toBe(1)
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(fiber)
      expect(attempt.attempts()).toBe(2)
    }))

  it.effect("caps a long retry-after at maxDelay", () =>
    Effect.gen(function* () {
      const attempt = flaky([failure(true, Duration.hours(1))])
      const fiber = yield* Effect.fork(run(withRetry(policy, attempt.stream)))
      yield* TestClock.adjust("30 seconds")
      yield* Fiber.join(fiber)
      expect(attempt.attempts()).toBe(2)
    }))
})
