import { type Duration, Effect } from "effect"

/**
 * The pause before a dropped stream is opened again, cut short on request: "Retry now" on the
 * page wakes every stream that waits, so all of them try at once instead of each at the end of
 * its own growing pause.
 */
export interface RetrySignal {
  /** Waits `duration`, or until `now` is called, whichever comes first. */
  readonly pause: (duration: Duration.DurationInput) => Effect.Effect<void>
  /** Ends every pause under way. */
  readonly now: () => void
}

export const makeRetrySignal = (): RetrySignal => {
  const waiting = new Set<() => void>()
  const woken = Effect.async<void>((resume) => {
    const wake = () => resume(Effect.void)
    waiting.add(wake)
    return Effect.sync(() => waiting.delete(wake))
  })
  return {
    pause: (duration) => Effect.raceFirst(Effect.sleep(duration), woken),
    now: () => {
      for (const wake of [...waiting]) wake()
    }
  }
}

/** For a stream nobody offers to retry early: the pause is the pause. */
export const plainPause: RetrySignal = { pause: (duration) => Effect.sleep(duration), now: () => undefined }
