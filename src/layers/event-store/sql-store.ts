import { type SqlClient, SqlSchema } from "@effect/sql"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Stream from "effect/Stream"
import type { EventDecodeError, SequenceConflict, StoreFailure } from "../../domain/errors.js"
import { type AgentEvent, TurnStopReason } from "../../domain/events.js"
import type { EventStoreShape, SessionSummary, TurnLeases } from "../../services/EventStore.js"
import { checkedIds } from "./checked-ids.js"
import { storeFailure } from "./store-failure.js"

/** The hot paths a SQL store implements its own way (SQLite on a raw connection, Postgres in transactions). */
export interface SqlLog {
  readonly appendAll: (events: ReadonlyArray<AgentEvent>) => Effect.Effect<void, SequenceConflict | StoreFailure>
  readonly head: (sessionId: string) => Effect.Effect<Option.Option<number>, StoreFailure>
  readonly replay: (sessionId: string, afterSequence: number) => Stream.Stream<AgentEvent, StoreFailure | EventDecodeError>
  /** The session's events and listing row in one transaction. */
  readonly deleteSession: (sessionId: string) => Effect.Effect<void, StoreFailure>
}

const SummaryRow = Schema.Struct({
  session_id: Schema.String,
  created_at: Schema.String,
  updated_at: Schema.String,
  last_sequence: Schema.Number,
  cwd: Schema.NullOr(Schema.String),
  client: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  parent_session_id: Schema.NullOr(Schema.String),
  archived: Schema.Number,
  open_turn: Schema.NullOr(Schema.String),
  last_stop: Schema.NullOr(Schema.String)
})

/** A stop reason this version does not know (written by a newer one) is left out rather than failing the listing. */
const isStopReason = Schema.is(TurnStopReason)

const toSummary = (row: typeof SummaryRow.Type): SessionSummary => ({
  sessionId: row.session_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastSequence: row.last_sequence,
  ...(row.cwd === null ? {} : { cwd: row.cwd }),
  ...(row.client === null ? {} : { client: row.client }),
  ...(row.title === null ? {} : { title: row.title }),
  ...(row.model === null ? {} : { model: row.model }),
  ...(row.parent_session_id === null ? {} : { parentSessionId: row.parent_session_id }),
  ...(row.archived === 0 ? {} : { archived: true }),
  ...(row.open_turn === null ? {} : { openTurnId: row.open_turn }),
  ...(isStopReason(row.last_stop) ? { lastStopReason: row.last_stop } : {})
})

/**
 * A SQL store's EventStoreShape: its log for the hot paths, and the listing (a cold path) on
 * the @effect/sql client, the same query on both databases: newest activity first, each
 * session's last event found through the primary key. `tieBreak` orders sessions whose last
 * events share a timestamp, in creation order as far as the database can tell. The header
 * columns (title, archived, open turn) are kept current by the log's appends.
 */
export const sqlStore = (log: SqlLog, sql: SqlClient.SqlClient, tieBreak: string, leases: TurnLeases): EventStoreShape => {
  const listRows = SqlSchema.findAll({
    Request: Schema.Void,
    Result: SummaryRow,
    execute: () => sql`
      SELECT s.session_id, s.created_at, s.cwd, s.client, s.title, s.model, s.parent_session_id, s.archived, s.open_turn, s.last_stop,
             e.sequence AS last_sequence, e.timestamp AS updated_at
      FROM sessions s
      JOIN events e ON e.session_id = s.session_id
        AND e.sequence = (SELECT max(sequence) FROM events WHERE session_id = s.session_id)
      ORDER BY e.timestamp DESC, ${sql.literal(tieBreak)}`
  })
  return checkedIds({
    append: (event) => log.appendAll([event]),
    appendAll: log.appendAll,
    replay: (sessionId, afterSequence = 0) => log.replay(sessionId, afterSequence),
    head: log.head,
    deleteSession: log.deleteSession,
    listSessions: listRows(undefined).pipe(
      Effect.map((rows) => rows.map(toSummary)),
      Effect.mapError(storeFailure("listSessions"))
    ),
    leases
  })
}
