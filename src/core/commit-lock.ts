import * as Effect from "effect/Effect"

/**
 * Mutual exclusion for a session's commits, held uninterruptibly from acquiring to release
 * (a commit must never stop between its append and its publish). Waiters get the lock in
 * the order they asked. Every event takes it, so it is cheaper than effect's Semaphore on an
 * uncontended pass (docs/performance.md).
 */
export interface CommitLock {
  readonly withLock: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const makeCommitLock = (): CommitLock => {
  let held = false
  const waiting: Array<() => void> = []

  // The lock passes straight to the next waiter, so no one can take it in between.
  const release = Effect.sync(() => {
    const next = waiting.shift()
    if (next === undefined) held = false
    else next()
  })

  const acquire = Effect.suspend(() => {
    if (!held) {
      held = true
      return Effect.void
    }
    return Effect.async<void>((resume) => {
      waiting.push(() => resume(Effect.void))
    })
  })

  // Already uninterruptible, so releasing after the outcome needs no (costlier) `ensuring`.
  return {
    withLock: (effect) =>
      Effect.uninterruptible(
        Effect.zipRight(
          acquire,
          Effect.matchCauseEffect(effect, {
            onFailure: (cause) => Effect.zipRight(release, Effect.failCause(cause)),
            onSuccess: (value) => Effect.as(release, value)
          })
        )
      )
  }
}
