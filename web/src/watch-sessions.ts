import { Cause, Effect, Exit, Option, Stream } from "effect"
import type { SessionListItem } from "../../src/domain/host.js"
import { AgentClient } from "../../src/rpc/client.js"
import { describe, isRefused, isUnreachable } from "./api.js"
import { plainPause, type RetrySignal } from "./retry.js"
import { backoff } from "./follow.js"
import { applyListFrame } from "./session-list.js"

export interface WatchHandlers {
  /** The whole list, newest first, after every change. */
  readonly onSessions: (sessions: ReadonlyArray<SessionListItem>) => void
  /** Why the list may be out of date (undefined once it is live again). */
  readonly onProblem: (problem: ListProblem | undefined) => void
  /** Cuts the pause before a retry short on request (default: none). */
  readonly retry?: RetrySignal
}

/** Why the list may be out of date; `unreachable` when nothing answers (the page says that once, for everything). */
export interface ListProblem {
  readonly message: string
  readonly unreachable: boolean
}

/**
 * Follows the server's session list (WatchSessions) for as long as the page is open: a
 * snapshot, then each change as it happens. A dropped stream is opened again after a growing
 * pause, and its new snapshot replaces the list; a refused token ends it (the page asks for a
 * new one).
 */
export const watchSessions = (handlers: WatchHandlers): Effect.Effect<void, never, AgentClient> =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const retry = handlers.retry ?? plainPause
    let failures = 0
    for (;;) {
      let sessions: ReadonlyArray<SessionListItem> | undefined = undefined
      const outcome = yield* client.WatchSessions().pipe(
        Stream.runForEachChunk((frames) =>
          Effect.sync(() => {
            const before = sessions
            for (const frame of frames) sessions = applyListFrame(sessions, frame)
            failures = 0
            handlers.onProblem(undefined)
            if (sessions !== undefined && sessions !== before) handlers.onSessions(sessions)
          })
        ),
        Effect.exit
      )
      const failure = Exit.isSuccess(outcome) ? Option.none() : Cause.failureOption(outcome.cause)
      if (Option.isSome(failure) && isRefused(failure.value)) return handlers.onProblem({ message: describe(failure.value), unreachable: false })
      const closed = Exit.isSuccess(outcome) || Cause.isInterruptedOnly(outcome.cause)
      handlers.onProblem(
        Option.isSome(failure)
          ? { message: describe(failure.value), unreachable: isUnreachable(failure.value) }
          : { message: closed ? "The server closed the session list." : Cause.pretty(outcome.cause), unreachable: closed }
      )
      yield* retry.pause(backoff(failures++))
    }
  })
