import { Cause, Duration, Effect, Exit, Option, Stream } from "effect"
import { AgentClient } from "../../src/rpc/client.js"
import { describe, isRefused, isUnreachable } from "./api.js"
import { plainPause, type RetrySignal } from "./retry.js"
import { applyFrames, type TimelineState } from "./timeline.js"

export type Connection =
  | { readonly _tag: "connecting" }
  | { readonly _tag: "live" }
  /** `unreachable`: nothing answers (the page says so once, for every stream). */
  | { readonly _tag: "retrying"; readonly reason: string; readonly unreachable: boolean }
  /** Nothing more to follow: the session does not exist, or the token was refused. */
  | { readonly _tag: "stopped"; readonly reason: string }

export interface FollowHandlers {
  readonly onState: (state: TimelineState) => void
  readonly onConnection: (connection: Connection) => void
  /** Cuts the pause before a retry short on request (default: none). */
  readonly retry?: RetrySignal
}

/** The pause before opening a dropped stream again: growing with each failure in a row, at most 5 s. */
export const backoff = (failures: number) => Duration.millis(Math.min(250 * 2 ** failures, 5_000))

/**
 * Follows a session from `initial` for as long as it runs: subscribes after the last applied
 * sequence, and after a dropped stream (network error, server restart, SubscriberLagged)
 * subscribes again from wherever the view got to. The reducer ignores anything at or below
 * that sequence, so the timeline ends complete with nothing doubled.
 */
export const follow = (initial: TimelineState, handlers: FollowHandlers): Effect.Effect<void, never, AgentClient> =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const retry = handlers.retry ?? plainPause
    let state = initial
    let failures = 0
    let connection: Connection["_tag"] | undefined
    const announce = (next: Connection) => {
      if (next._tag === "live" && connection === "live") return
      connection = next._tag
      handlers.onConnection(next)
    }
    announce({ _tag: "connecting" })
    for (;;) {
      const outcome = yield* client.Subscribe({ sessionId: state.sessionId, afterSequence: state.lastSequence }).pipe(
        Stream.runForEachChunk((frames) =>
          Effect.sync(() => {
            state = applyFrames(state, frames)
            failures = 0
            announce({ _tag: "live" })
            handlers.onState(state)
          })
        ),
        Effect.exit
      )
      const failure = Exit.isSuccess(outcome) ? Option.none() : Cause.failureOption(outcome.cause)
      if (Option.isNone(failure)) {
        // The stream ended or was interrupted from the other side: the server is shutting
        // down or restarting. (Our own stop interrupts this fiber and never gets here.)
        const closed = Exit.isSuccess(outcome) || Cause.isInterruptedOnly(outcome.cause)
        announce({ _tag: "retrying", reason: closed ? "The server closed the stream." : Cause.pretty(outcome.cause), unreachable: closed })
        yield* retry.pause(backoff(failures++))
        continue
      }
      const error = failure.value
      if (error._tag === "SessionNotFound" || isRefused(error)) {
        return announce({ _tag: "stopped", reason: error._tag === "SessionNotFound" ? error.message : describe(error) })
      }
      if (error._tag === "SubscriberLagged") continue
      announce({ _tag: "retrying", reason: describe(error), unreachable: isUnreachable(error) })
      yield* retry.pause(backoff(failures++))
    }
  })
