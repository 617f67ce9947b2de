import { Data, Duration, Effect, Schedule, Stream } from "effect"
import { ModelError } from "../../domain/errors.js"
import type { ModelStreamEvent } from "../../domain/model.js"

/** How often, and how patiently, an adapter retries a failed request. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 disables retries). */
  readonly maxAttempts: number
  /** Delay before the first retry; each further retry doubles it (with jitter). */
  readonly baseDelay: Duration.DurationInput
  /** Upper bound for any single delay, a provider's `retry-after` included. */
  readonly maxDelay: Duration.DurationInput
}

export const defaultRetryPolicy: RetryPolicy = { maxAttempts: 4, baseDelay: "1 second", maxDelay: "30 seconds" }

export const resolveRetryPolicy = (overrides: Partial<RetryPolicy> | undefined): RetryPolicy => ({
  ...defaultRetryPolicy,
  ...overrides
})

/**
 * One failed attempt, before the retry decision: the error the caller sees if we give up,
 * whether another attempt can help, and how long the provider asked us to wait.
 */
export class AttemptFailure extends Data.TaggedError("AttemptFailure")<{
  readonly error: ModelError
  readonly retryable: boolean
  readonly retryAfter?: Duration.Duration
}> {}

const retrySchedule = (policy: RetryPolicy, mayRetry: () => boolean) => {
  const cap = Duration.decode(policy.maxDelay)
  const backoff = Schedule.exponential(policy.baseDelay).pipe(
    Schedule.jittered,
    Schedule.modifyDelay((_, delay) => Duration.min(delay, cap))
  )
  // Intersecting takes the longer of the two delays: our backoff or the provider's retry-after.
  const askedFor = Schedule.identity<AttemptFailure>().pipe(
    Schedule.addDelay((failure) => Duration.min(failure.retryAfter ?? Duration.zero, cap))
  )
  return backoff.pipe(
    Schedule.intersect(askedFor),
    Schedule.intersect(Schedule.recurs(Math.max(0, policy.maxAttempts - 1))),
    Schedule.whileInput((failure: AttemptFailure) => failure.retryable && mayRetry()),
    Schedule.tapInput((failure: AttemptFailure) =>
      Effect.logDebug(`model request attempt failed (${failure.error.code}, retryable: ${failure.retryable}): ${failure.error.message}`)
    )
  )
}

/**
 * Runs `attempt` and retries it by `policy` while it fails with a retryable error and has
 * not emitted anything yet: once an event reached the consumer, replaying the request
 * would duplicate it, so a later failure just ends the stream.
 */
export const withRetry = <R>(
  policy: RetryPolicy,
  attempt: Stream.Stream<ModelStreamEvent, AttemptFailure, R>
): Stream.Stream<ModelStreamEvent, ModelError, R> =>
  Stream.suspend(() => {
    let emitted = false
    let attempts = 0
    return attempt.pipe(
      Stream.tap(() => Effect.sync(() => {
        emitted = true
      })),
      Stream.tapError(() => Effect.sync(() => {
        attempts++
      })),
      Stream.retry(retrySchedule(policy, () => !emitted)),
      Stream.mapError((failure) => (attempts > 1 ? withAttempts(failure.error, attempts) : failure.error))
    )
  })

const withAttempts = (error: ModelError, attempts: number): ModelError =>
  new ModelError({
    code: error.code,
    message: `${error.message} (gave up after ${attempts} attempts)`,
    ...(error.status === undefined ? {} : { status: error.status })
  })
