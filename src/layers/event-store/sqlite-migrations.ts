import { Migrator, SqlClient } from "@effect/sql"
import * as Effect from "effect/Effect"

/**
 * The event store schema. Keys must match /^\d+_.+$/: the migrator silently skips others.
 * `sessions` holds the listing header (written once, with a session's first event);
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
  )
})
