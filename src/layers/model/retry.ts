import * as Chunk from "effect/Chunk"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ModelError } from "../../domain/errors.js"
import type { ModelStreamEvent } from "../../domain/model.js"

/**
 * The engine's key for a stream's own pull (`DirectPull` in `src/core/direct-pull.ts`, which a
 * layer may not import): a registered symbol, so the same key. A model answer is built from a
 * pull, and the engine's step reads it directly (`test/core/for-each-pulled.test.ts` checks it).
 */
const DirectPull: unique symbol = Symbol.for("custom-agent/DirectPull")

/** Opens the answer's pull in the reader's scope: a chunk of events, `None` at the end, `Some(error)` on failure. */
type PullIn<R> = (scope: Scope.Scope) => Effect.Effect<Effect.Effect<Chunk.Chunk<ModelStreamEvent>, Option.Option<ModelError>, R>, ModelError, R>

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

const retrySchedule = (policy: RetryPolicy) => {
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
    Schedule.whileInput((failure: AttemptFailure) => failure.retryable),
    Schedule.tapInput((failure: AttemptFailure) =>
      Effect.logDebug(`model request attempt failed (${failure.error.code}, retryable: ${failure.retryable}): ${failure.error.message}`)
    )
  )
}

/** What one read of an attempt's answer gave: events (maybe none), and whether the answer ended. */
export interface AttemptBatch {
  readonly events: ReadonlyArray<ModelStreamEvent>
  readonly done: boolean
}

/** Reads the next batch of an attempt's answer. */
export type AttemptPull = Effect.Effect<AttemptBatch, AttemptFailure>

export interface ModelAnswer<R> {
  readonly policy: RetryPolicy
  /** Checked once, before the first attempt (e.g. that the prompt fits the window). */
  readonly preflight: Effect.Effect<void, ModelError>
  /** Starts an attempt, its resources in the given scope (closed if the attempt fails), and returns its pull. */
  readonly open: (scope: Scope.Scope) => Effect.Effect<AttemptPull, AttemptFailure, R>
}

/**
 * A model answer as one stream stage. An attempt is read until it has something to emit; a
 * retryable failure before then starts another attempt by `policy`. Once an event was
 * emitted, replaying the request would duplicate it, so a later failure just ends the stream.
 * Batches are read in a plain pull rather than through stream operators, and the attempts'
 * resources live in a scope the stream closes when it ends, fails or is interrupted (instead
 * of `Stream.unwrapScoped`): stream stages are costly on effect 3, and this runs once per
 * model step (figures in docs/performance.md). For the same
 * reason the stream carries its pull (`DirectPull`), which the engine reads directly.
 */
export const modelAnswer = <R>(answer: ModelAnswer<R>): Stream.Stream<ModelStreamEvent, ModelError, R> & { readonly [DirectPull]: PullIn<R> } => {
  const stream = Stream.suspend(() => {
    const run = answerRun(answer, undefined)
    return Stream.repeatEffectChunkOption(run.read).pipe(Stream.ensuring(run.close))
  })
  // The attempts' scopes hang off the reader's scope, which closes them.
  const pull: PullIn<R> = (scope) => Effect.sync(() => answerRun(answer, scope).read)
  return Object.assign(stream, { [DirectPull]: pull })
}

/**
 * One run of an answer: its read (a pull) and what closes the attempts' resources. Each
 * attempt's scope is a child of `parent` when one is given (closing it closes them), else of
 * a scope of the run's own, which `close` closes.
 */
const answerRun = <R>(answer: ModelAnswer<R>, parent: Scope.Scope | undefined) => {
  let resources: Scope.CloseableScope | undefined
  let pull: AttemptPull | undefined
  let done = false
  let attempts = 0
  const emit = (batch: AttemptBatch) => {
    done = batch.done
    return Chunk.unsafeFromArray(batch.events)
  }
  const attempt = (outer: Scope.Scope) =>
    Effect.gen(function* () {
      attempts++
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      // A failed attempt's resources go before the next attempt; an interrupted one's go with
      // the outer scope, so catching the failure is enough (and cheaper than onError).
      return yield* Effect.gen(function* () {
        const opened = yield* answer.open(scope)
        for (;;) {
          const first = yield* opened
          if (first.events.length > 0 || first.done) return { opened, first }
        }
      }).pipe(Effect.catchAllCause((cause) => Effect.zipRight(Scope.close(scope, Exit.failCause(cause)), Effect.failCause(cause))))
    })
  const start = Effect.gen(function* () {
    yield* answer.preflight
    let scope = parent
    if (scope === undefined) {
      resources = yield* Scope.make()
      scope = resources
    }
    const { opened, first } = yield* attempt(scope).pipe(
      Effect.catchAll((failure) => retryAfter(failure, attempt(scope), answer.policy)),
      Effect.mapError((failure) => (attempts > 1 ? withAttempts(failure.error, attempts) : failure.error))
    )
    pull = opened
    return emit(first)
  })
  const read = Effect.suspend(() => {
    if (pull === undefined) return Effect.mapError(start, Option.some)
    if (done) return Effect.fail(Option.none())
    return Effect.mapBoth(pull, { onFailure: (failure) => Option.some(failure.error), onSuccess: emit })
  })
  const close = Effect.suspend(() => (resources === undefined ? Effect.void : Scope.close(resources, Exit.void)))
  return { read, close }
}

/**
 * Retries `again` by the policy after a first attempt failed with `failure`. Most answers
 * succeed at once, so the schedule (costly to set up) starts only now; its
 * first run replays that failure, so it decides and waits exactly as if it had run the first
 * attempt itself.
 */
const retryAfter = <A, R>(failure: AttemptFailure, again: Effect.Effect<A, AttemptFailure, R>, policy: RetryPolicy) => {
  let replayed = false
  const next = Effect.suspend(() => {
    if (replayed) return again
    replayed = true
    return Effect.fail(failure)
  })
  return Effect.retry(next, retrySchedule(policy))
}

const withAttempts = (error: ModelError, attempts: number): ModelError =>
  new ModelError({
    code: error.code,
    message: `${error.message} (gave up after ${attempts} attempts)`,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.cause === undefined ? {} : { cause: error.cause })
  })
