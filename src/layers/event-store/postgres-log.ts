import { type SqlClient, SqlSchema } from "@effect/sql"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { SequenceConflict } from "../../domain/errors.js"
import type { AgentEvent } from "../../domain/events.js"
import { headerOf, listingChange } from "../../domain/session-listing.js"
import { keysetReplay } from "./keyset-pages.js"
import { driverDefectsAsFailures, isUniqueViolation } from "./postgres-errors.js"
import { APPEND_CHANNEL, noticePayload } from "./postgres-notify.js"
import { checkSequence } from "./sequence.js"
import type { SqlLog } from "./sql-store.js"
import { storeFailure } from "./store-failure.js"

/**
 * Append, head and replay on the tables of `migrate`. Every call asks the database (no cached
 * tails): other processes append to the same sessions, and an append reads the last sequence
 * in its own transaction anyway.
 */
export const makePostgresLog = (sql: SqlClient.SqlClient): SqlLog => {
  const selectLast = SqlSchema.single({
    Request: Schema.String,
    Result: Schema.Struct({ last: Schema.NullOr(Schema.Number) }),
    execute: (sessionId) => sql`SELECT max(sequence) AS last FROM events WHERE session_id = ${sessionId}`
  })
  const readLast = (sessionId: string) => Effect.map(selectLast(sessionId), (row) => row.last ?? 0)

  /**
   * One transaction: check the batch against the last committed sequence, write it, notify.
   * Two writers may both pass the check; the primary key lets one commit and gives the other a
   * unique violation (see `classify`). The notice is delivered only if the append commits.
   */
  const write = (sessionId: string, events: ReadonlyArray<AgentEvent>) =>
    Effect.gen(function* () {
      const last = yield* readLast(sessionId)
      yield* checkSequence(last, events)
      const first = events[0]
      if (first !== undefined && first.sequence === 1) {
        const header = headerOf(first)
        yield* sql`
          INSERT INTO sessions (session_id, created_at, cwd, client, title, model, parent_session_id)
          VALUES (${sessionId}, ${first.timestamp}, ${header.cwd ?? null}, ${header.client ?? null},
                  ${header.title ?? null}, ${header.model ?? null}, ${header.parentSessionId ?? null})`
      }
      // One statement with six array parameters, whatever the batch's size (a multi-row
      // VALUES would need six parameters per event, and Postgres takes at most 65535).
      yield* sql`
        INSERT INTO events (session_id, sequence, type, turn_id, timestamp, event)
        SELECT ${sessionId}::text, * FROM unnest(
          ${events.map((e) => e.sequence)}::int[], ${events.map((e) => e.type)}::text[],
          ${events.map((e) => e.turnId ?? null)}::text[], ${events.map((e) => e.timestamp)}::text[],
          ${events.map((e) => JSON.stringify(e))}::text[])`
      // The listing's header columns follow the log in the same transaction.
      const change = listingChange(events)
      if (change?.title !== undefined) yield* sql`UPDATE sessions SET title = ${change.title} WHERE session_id = ${sessionId}`
      if (change?.archived !== undefined) yield* sql`UPDATE sessions SET archived = ${change.archived ? 1 : 0} WHERE session_id = ${sessionId}`
      if (change?.openTurnId !== undefined) yield* sql`UPDATE sessions SET open_turn = ${change.openTurnId} WHERE session_id = ${sessionId}`
      if (change?.lastStopReason !== undefined) yield* sql`UPDATE sessions SET last_stop = ${change.lastStopReason} WHERE session_id = ${sessionId}`
      yield* sql`SELECT pg_notify(${APPEND_CHANNEL}, ${noticePayload({ sessionId, sequence: last + events.length })})`
    })

  /** A unique violation is a writer that got there first: a conflict against the sequence it left. */
  const classify = (sessionId: string, first: AgentEvent) => (error: unknown) =>
    error instanceof SequenceConflict
      ? Effect.fail(error)
      : isUniqueViolation(error)
        ? Effect.flatMap(Effect.mapError(readLast(sessionId), storeFailure("append")), (last) =>
            Effect.fail(new SequenceConflict({ sessionId, expected: last + 1, actual: first.sequence }))
          )
        : Effect.fail(storeFailure("append")(error))

  return {
    deleteSession: (sessionId) =>
      sql
        .withTransaction(
          Effect.zipRight(
            sql`DELETE FROM events WHERE session_id = ${sessionId}`,
            sql`DELETE FROM sessions WHERE session_id = ${sessionId}`
          )
        )
        .pipe(driverDefectsAsFailures, Effect.asVoid, Effect.mapError(storeFailure("deleteSession"))),
    appendAll: (events) => {
      const first = events[0]
      if (first === undefined) return Effect.void
      return sql
        .withTransaction(write(first.sessionId, events))
        .pipe(driverDefectsAsFailures, Effect.catchAll(classify(first.sessionId, first)))
    },
    head: (sessionId) =>
      readLast(sessionId).pipe(
        Effect.map((last) => (last === 0 ? Option.none() : Option.some(last))),
        Effect.mapError(storeFailure("head"))
      ),
    replay: (sessionId, afterSequence) =>
      keysetReplay(sessionId, afterSequence, Effect.mapError(readLast(sessionId), storeFailure("replay")), (after, limit) =>
        sql`SELECT event FROM events WHERE session_id = ${sessionId} AND sequence > ${after} ORDER BY sequence LIMIT ${limit}`.values.pipe(
          Effect.map((rows) => rows.map((row) => row[0])),
          Effect.mapError(storeFailure("replay"))
        )
      )
  }
}
