import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { decodeEventJson } from "../../domain/decode.js"
import { EventDecodeError } from "../../domain/errors.js"
import type { AgentEvent } from "../../domain/events.js"
import { type DecodedPage, decodedPages, locateDecodeError } from "./decoded-pages.js"

/** Rows per replay page: enough to amortize a statement, small enough to keep memory flat. */
const PAGE_SIZE = 2000

/**
 * A log is gap-free from 1, so the rows after `after` must hold sequences after+1, after+2,
 * ...: checking each decoded event against that catches a row whose JSON does not match its
 * key, and makes the decoded sequence a safe keyset cursor.
 */
const decodePage = (
  sessionId: string,
  after: number,
  until: number,
  limit: number,
  rows: ReadonlyArray<unknown>
): DecodedPage<number> => {
  const events: Array<AgentEvent> = []
  let expected = after + 1
  const where = () => `session ${sessionId} sequence ${expected}`
  for (const text of rows) {
    if (typeof text !== "string") {
      const error = new EventDecodeError({ problem: "not_an_event", message: `${where()}: the row holds no event text` })
      return { events, error, next: Option.none() }
    }
    const decoded = decodeEventJson(text)
    if (Either.isLeft(decoded)) return { events, error: locateDecodeError(decoded.left, where()), next: Option.none() }
    const event = decoded.right
    if (event.sessionId !== sessionId || event.sequence !== expected) {
      const error = new EventDecodeError({
        problem: "invalid_payload",
        message: `${where()}: the row holds the event of session ${event.sessionId} sequence ${event.sequence}`,
        eventType: event.type
      })
      return { events, error, next: Option.none() }
    }
    events.push(event)
    expected++
  }
  const reached = expected - 1
  return { events, error: undefined, next: rows.length < limit || reached >= until ? Option.none() : Option.some(reached) }
}

/**
 * A session's events after `afterSequence` from a SQL table keyed by (session, sequence), in
 * keyset pages: `readRows(after, limit)` gives the stored event texts of the next `limit`
 * sequences after `after`, in order. Each page is one short read; no cursor stays open
 * between pulls. The replay ends at the head it saw when it started (`head`), like the other
 * stores: a subscriber replays up to there and takes later events live, with no overlap.
 */
export const keysetReplay = <E, R>(
  sessionId: string,
  afterSequence: number,
  head: Effect.Effect<number, E, R>,
  readRows: (after: number, limit: number) => Effect.Effect<ReadonlyArray<unknown>, E, R>
): Stream.Stream<AgentEvent, E | EventDecodeError, R> =>
  Stream.unwrap(
    Effect.map(head, (until) =>
      decodedPages(afterSequence, (after) => {
        const limit = Math.min(PAGE_SIZE, until - after)
        const rows = limit > 0 ? readRows(after, limit) : Effect.succeed([])
        return Effect.map(rows, (page) => decodePage(sessionId, after, until, limit, page))
      })
    )
  )
