import { Migrator, SqlClient, type SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type { StoreFailure } from "../../domain/errors.js"
import { driverDefectsAsFailures } from "./postgres-errors.js"
import { migrations } from "./sqlite-migrations.js"
import { storeFailure } from "./store-failure.js"

// Without the pg_dump schema dumps PgMigrator adds (a subprocess we do not want).
const runMigrations = Migrator.make({})

/** The advisory lock key of this store's migrations (a constant bigint, the same in every process). */
const MIGRATION_LOCK = 7_202_603_001

/**
 * Runs `effect` while this process holds the session advisory lock `key`, taken on a
 * reserved connection of the client's pool (so `effect` needs a second one). Unlocks even
 * after an interrupted lock: the server may have granted it as we gave up waiting, and the
 * connection goes back to the pool, where a lock left on it would block every other process.
 * Unlocking a lock not held only warns.
 */
export const withAdvisoryLock = <A, E, R>(
  key: number,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError.SqlError, R | PgClient.PgClient> =>
  Effect.gen(function* () {
    const connection = yield* (yield* PgClient.PgClient).withoutTransforms().reserve
    const lock = connection.executeUnprepared(`SELECT pg_advisory_lock(${key})`, [], undefined)
    const unlock = connection.executeUnprepared(`SELECT pg_advisory_unlock(${key})`, [], undefined)
    return yield* Effect.uninterruptibleMask((restore) =>
      Effect.gen(function* () {
        const done = yield* Effect.exit(restore(Effect.zipRight(lock, effect)))
        const unlocked = yield* Effect.exit(unlock)
        return yield* Exit.zipLeft(done, unlocked)
      })
    )
  }).pipe(Effect.scoped)

/**
 * Creates or updates the event store's tables; safe to run any number of times, from any
 * number of processes at once. The tables are the SQLite store's: its migrations are plain SQL
 * that Postgres runs as they are, so the two schemas cannot drift apart.
 *
 * On an empty database two processes migrating together race on creating the migrator's own
 * table (one dies on a duplicate pg_type), so the whole run holds a session advisory lock. It
 * is not an `pg_advisory_xact_lock` in one transaction around the migrator, because the
 * migrator probes for its table with a query that fails on an empty database, and a failed
 * query aborts the transaction it is in.
 */
export const migrate: Effect.Effect<void, StoreFailure, PgClient.PgClient> = Effect.gen(function* () {
  const sql = (yield* PgClient.PgClient).withoutTransforms()
  yield* withAdvisoryLock(MIGRATION_LOCK, runMigrations({ loader: migrations }).pipe(Effect.provideService(SqlClient.SqlClient, sql)))
}).pipe(driverDefectsAsFailures, Effect.mapError(storeFailure("migrate")))
