import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { AgentEvent } from "../domain/events.js"
import { isStartedChild, type StartedChild } from "../domain/subagent-link.js"

/** A session a parent's log names as its subagent, whose own first event does not say so. */
export class NotTheChild extends Data.TaggedError("NotTheChild")<{ readonly sessionId: string }> {}

/** The child's events, once its first one confirms `started` (`isStartedChild`); else NotTheChild before any is given. */
export const ownChild =
  (childSessionId: string, started: StartedChild) =>
  <E>(events: Stream.Stream<AgentEvent, E>): Stream.Stream<AgentEvent, E | NotTheChild> =>
    events.pipe(
      Stream.mapAccumEffect(true, (first, event): Effect.Effect<readonly [boolean, AgentEvent], NotTheChild> =>
        first && !isStartedChild(event, started) ? Effect.fail(new NotTheChild({ sessionId: childSessionId })) : Effect.succeed([false, event] as const)
      )
    )

export interface ExportTree<E> {
  /** One session's log, as the host's export gives it. */
  readonly exportOne: (sessionId: string) => Stream.Stream<AgentEvent, E>
  /** Only the session's own log (`--no-subagents`). */
  readonly subagents: boolean
  /** Whether a failure says the session is not in the store (a subagent's session deleted since). */
  readonly isMissing: (error: E, sessionId: string) => boolean
  /** Told of a subagent's session left out because its own log does not confirm the link. */
  readonly leftOut: (childSessionId: string, parentSessionId: string) => Effect.Effect<void>
}

/**
 * A session's log, then the subagent sessions it started, in the order it started them, then
 * theirs: one stream whose sessions each keep their lines together, an export that imports
 * whole (`custom-agent sessions export`, the interactive `/export`). A subagent's session the
 * store no longer has is left out, and so is one whose own first event does not name the call
 * that started it (a log's claim alone carries no other session's log into its export).
 */
export const withSubagents = <E>(tree: ExportTree<E>, sessionId: string): Stream.Stream<AgentEvent, E> => {
  const seen = new Set<string>([sessionId])
  const waiting: Array<readonly [string, StartedChild]> = []
  const follow = <R>(id: string, events: Stream.Stream<AgentEvent, R>): Stream.Stream<AgentEvent, R> =>
    events.pipe(
      Stream.tap((event) =>
        Effect.sync(() => {
          if (!tree.subagents || event.type !== "subagent.started" || seen.has(event.payload.childSessionId)) return
          seen.add(event.payload.childSessionId)
          waiting.push([event.payload.childSessionId, { parentSessionId: id, toolCallId: event.payload.toolCallId }])
        })
      )
    )
  const rest = (): Stream.Stream<AgentEvent, E> => {
    const next = waiting.shift()
    if (next === undefined) return Stream.empty
    const [childId, started] = next
    return follow(childId, tree.exportOne(childId).pipe(ownChild(childId, started))).pipe(
      Stream.catchAll((error): Stream.Stream<AgentEvent, E> =>
        error instanceof NotTheChild
          ? Stream.execute(tree.leftOut(childId, started.parentSessionId))
          : tree.isMissing(error, childId)
            ? Stream.empty
            : Stream.fail(error)
      ),
      Stream.concat(Stream.suspend(rest))
    )
  }
  return follow(sessionId, tree.exportOne(sessionId)).pipe(Stream.concat(Stream.suspend(rest)))
}
