import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { EventDecodeError } from "../../domain/errors.js"
import type { AgentEvent } from "../../domain/events.js"

/** One page read from storage: the events that decoded, then the first that did not, when one did not. */
export interface DecodedPage<S> {
  readonly events: ReadonlyArray<AgentEvent>
  readonly error: EventDecodeError | undefined
  /** Where the next page starts, or none after the last page. */
  readonly next: Option.Option<S>
}

type Cursor<S> = { readonly _tag: "At"; readonly at: S } | { readonly _tag: "Failed"; readonly error: EventDecodeError }

/**
 * A stream of pages. A page with a bad record still emits the events before it, and the
 * stream fails on the next pull: a reader sees everything that was readable, in order,
 * then a typed error naming the record, never a silent gap.
 */
export const decodedPages = <S, E, R>(
  start: S,
  read: (at: S) => Effect.Effect<DecodedPage<S>, E, R>
): Stream.Stream<AgentEvent, E | EventDecodeError, R> =>
  Stream.paginateChunkEffect<Cursor<S>, AgentEvent, E | EventDecodeError, R>({ _tag: "At", at: start }, (cursor) =>
    cursor._tag === "Failed"
      ? Effect.fail(cursor.error)
      : Effect.map(read(cursor.at), (page) => {
          const next: Option.Option<Cursor<S>> =
            page.error !== undefined
              ? Option.some({ _tag: "Failed", error: page.error })
              : Option.map(page.next, (at) => ({ _tag: "At", at }))
          return [Chunk.unsafeFromArray(page.events), next] as const
        })
  )

/** Prefixes a decode error's message with where the record was found (and sets its line). */
export const locateDecodeError = (error: EventDecodeError, where: string, line?: number): EventDecodeError => {
  const at = line ?? error.line
  return new EventDecodeError({
    problem: error.problem,
    message: `${where}: ${line === undefined ? "" : `line ${line}: `}${error.message}`,
    ...(error.eventType === undefined ? {} : { eventType: error.eventType }),
    ...(at === undefined ? {} : { line: at })
, cause: error  })
}
