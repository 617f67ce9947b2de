import { Migrator, SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { StoreFailure } from "../../domain/errors.js"
import { driverDefectsAsFailures } from "./postgres-errors.js"
import { migrations } from "./sqlite-migrations.js"
import { storeFailure } from "./store-failure.js"

// Without the pg_dump schema dumps PgMigrator adds (a subprocess we do not want).
const runMigrations = Migrator.make({})

/** The advisory lock key of this store's migrations (any constant bigint; the same in every process). */
const MIGRATION_LOCK = 7_202_603_001

/**
 * Creates or updates the event store's tables; safe to run any number of times, from any
 * number of processes at once. The tables are the SQLite store's: its migrations are plain SQL
 * that Postgres runs as they are, so the two schemas cannot drift apart.
 *
 * On an empty database two processes migrating together race on creating the migrator's own
 * table (one dies on a duplicate pg_type), so the whole run holds a session advisory lock. It
 * is taken on a reserved connection and not as an `pg_advisory_xact_lock` in one transaction
 * around the migrator, because the migrator probes for its table with a query that fails on
 * an empty database, and a failed query aborts the transaction it is in. The migrator needs a
 * second connection of the pool while the lock's is held.
 */
export const migrate: Effect.Effect<void, StoreFailure, PgClient.PgClient> = Effect.gen(function* () {
  const sql = (yield* PgClient.PgClient).withoutTransforms()
  const connection = yield* sql.reserve
  const lock = connection.executeUnprepared(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`, [], undefined)
  // Unlocks even after an interrupted lock: the server may have granted it as we gave up
  // waiting. Unlocking a lock not held only warns. The connection goes back to the pool, so
  // a lock left on it would block every other process's migrations.
  const unlock = connection.executeUnprepared(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`, [], undefined)
  yield* Effect.uninterruptibleMask((restore) =>
    Effect.gen(function* () {
      const migrated = yield* Effect.exit(
        restore(Effect.zipRight(lock, runMigrations({ loader: migrations }).pipe(Effect.provideService(SqlClient.SqlClient, sql))))
      )
      const unlocked = yield* Effect.exit(unlock)
      return yield* Exit.zipLeft(migrated, unlocked)
    })
  )
}).pipe(Effect.scoped, driverDefectsAsFailures, Effect.mapError(storeFailure("migrate")))
