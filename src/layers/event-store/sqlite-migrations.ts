import { Migrator, SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/**
 * The event store schema. Keys must match /^\d+_.+$/: the migrator silently skips others.
 * Add a migration for a change; never edit one that has shipped (databases ran it already).
 * `sessions` holds the listing header (written with a session's first event, then kept by appends);
 * `events` holds each event's JSON keyed by (session_id, sequence), whose primary key is
 * what makes "exactly the next sequence" hold across processes.
 */
export const migrations = Migrator.fromRecord({
  "0001_create_sessions": Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY NOT NULL,
        created_at TEXT NOT NULL,
        cwd TEXT,
        client TEXT,
        title TEXT,
        model TEXT
      )`
  ),
  "0002_create_events": Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      CREATE TABLE events (
        session_id TEXT NOT NULL,
        sequence INTEGER NOT NULL,
        type TEXT NOT NULL,
        turn_id TEXT,
        timestamp TEXT NOT NULL,
        event TEXT NOT NULL,
        PRIMARY KEY (session_id, sequence)
      )`
  ),
  // The listing's header follows the log: the last rename's title, the last archive flag, and
  // the turn started and not completed (filled in for existing logs, one pass over them).
  "0003_session_listing": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0`,
      sql`ALTER TABLE sessions ADD COLUMN open_turn TEXT`,
      sql`
        UPDATE sessions SET open_turn = (
          SELECT s.turn_id FROM events s
          WHERE s.session_id = sessions.session_id AND s.type = 'turn.started'
            AND s.sequence > COALESCE(
              (SELECT max(c.sequence) FROM events c WHERE c.session_id = sessions.session_id AND c.type = 'turn.completed'), 0)
          ORDER BY s.sequence DESC LIMIT 1)`
    ], { discard: true })
  ),
  // Who runs each session's turn, across processes: see sql-leases.ts. Times are milliseconds by the database's clock.
  "0004_create_turn_leases": Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      CREATE TABLE turn_leases (
        session_id TEXT PRIMARY KEY NOT NULL,
        owner TEXT NOT NULL,
        expires_at BIGINT NOT NULL
      )`
  ),
  // A subagent's session names its parent in the listing (no session before this had one).
  "0005_session_parent": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE sessions ADD COLUMN parent_session_id TEXT`),
  // How each session's last completed turn ended (a failed one is marked in the list), filled in
  // from the last `turn.completed` of existing logs: the one statement here that reads the
  // events' JSON, which the two databases spell differently.
  "0006_session_last_stop": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`ALTER TABLE sessions ADD COLUMN last_stop TEXT`,
      sql`
        UPDATE sessions SET last_stop = (
          SELECT ${sql.onDialectOrElse({
            pg: () => sql.literal("(c.event::jsonb -> 'payload' ->> 'stopReason')"),
            orElse: () => sql.literal("json_extract(c.event, '$.payload.stopReason')")
          })}
          FROM events c
          WHERE c.session_id = sessions.session_id AND c.type = 'turn.completed'
          ORDER BY c.sequence DESC LIMIT 1)`
    ], { discard: true })
  )
})
