import * as Reactivity from "@effect/experimental/Reactivity"
import { Migrator, SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as path from "node:path"
import { StoreFailure } from "../../domain/errors.js"
import { EventStore, type EventStoreShape } from "../../services/EventStore.js"
import { ensurePrivateDir, ensurePrivateFile } from "../private-files.js"
import { BUSY_TIMEOUT_MS, makeSqliteLog, openConnection } from "./sqlite-log.js"
import { migrations } from "./sqlite-migrations.js"
import { DEFAULT_LEASE_TTL_MS, makeSqlLeases } from "./sql-leases.js"
import { sqlStore } from "./sql-store.js"
import { storeFailure } from "./store-failure.js"

const runMigrations = Migrator.make({})

export interface SqliteStoreOptions {
  /** A database file (not `:memory:`: two connections share it). Its directory is created if missing. */
  readonly filename: string
  /** `normal` (default) survives a process crash; `full` also survives power loss. See `openConnection`. */
  readonly synchronous?: "normal" | "full"
  /** Page size for a new file; ignored once the file exists. */
  readonly pageSize?: number
  /** How long a turn's lease outlives its last renewal (default 10 s): how soon a killed process's turn shows as interrupted. */
  readonly leaseTtlMs?: number
}

/**
 * @effect/sql's migrator on the SQLite client (SqliteMigrator adds only schema dumps via the
 * sqlite3 binary, which we do not use), inside one `BEGIN IMMEDIATE` transaction: it holds the
 * file's write lock from its first read, so processes opening a fresh file at once migrate one
 * after the other (each waits up to the busy timeout) and each finds the schema whole. Under the
 * migrator's own deferred `BEGIN`, a loser's busy insert reads to it as "another process
 * migrates", and it went on before the winner committed (`no such table`). The migrator's own
 * transaction nests in this one as a savepoint, on the connection reserved here.
 */
const migrateAlone = (sql: SqliteClient.SqliteClient) =>
  Effect.scoped(
    Effect.gen(function* () {
      const connection = yield* sql.reserve
      yield* connection.executeUnprepared("BEGIN IMMEDIATE", [], undefined)
      const migrated = yield* runMigrations({ loader: migrations }).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.provideService(SqlClient.TransactionConnection, [connection, 0] as const),
        Effect.exit
      )
      yield* connection.executeUnprepared(Exit.isSuccess(migrated) ? "COMMIT" : "ROLLBACK", [], undefined)
      return yield* migrated
    })
  )

/** SQLite's clock in milliseconds since the epoch (julianday keeps milliseconds; works on every SQLite 3). */
const SQLITE_NOW_MS = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"

/**
 * The embedded default store: one SQLite file in WAL mode. Two connections share it: the
 * @effect/sql client runs migrations, listings and turn leases (cold paths), a raw better-sqlite3
 * connection with prepared statements runs append, head and replay (hot paths; see
 * `makeSqliteLog` for why). Both wait up to BUSY_TIMEOUT_MS for another writer; both close
 * with the scope.
 */
export const make = (options: SqliteStoreOptions): Effect.Effect<EventStoreShape, StoreFailure, Scope.Scope> =>
  Effect.gen(function* () {
    const open = storeFailure("open")
    if (options.filename === "" || options.filename === ":memory:" || options.filename.startsWith("file:")) {
      const reason = `the SQLite store needs a file path, not ${JSON.stringify(options.filename)}`
      return yield* Effect.fail(new StoreFailure({ operation: "open", reason }))
    }
    // Private before SQLite opens it: its -wal and -shm files take the database file's mode.
    yield* Effect.try({
      try: () => {
        ensurePrivateDir(path.dirname(path.resolve(options.filename)))
        ensurePrivateFile(options.filename)
      },
      catch: open
    })
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () =>
          openConnection({
            filename: options.filename,
            synchronous: options.synchronous ?? "normal",
            pageSize: options.pageSize
          }),
        catch: open
      }),
      (db) => Effect.sync(() => db.close())
    )
    const sql = yield* SqliteClient.make({ filename: options.filename }).pipe(Effect.provide(Reactivity.layer))
    yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`).pipe(Effect.mapError(open))
    yield* migrateAlone(sql).pipe(Effect.mapError(storeFailure("migrate")))
    // Ties in insertion order (rowid), as the memory store keeps them.
    // Leases on the Effect client: a renewal every few seconds per running turn is no hot path.
    const leases = makeSqlLeases(sql, { ttlMs: options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS, nowMs: SQLITE_NOW_MS })
    return sqlStore(makeSqliteLog(db), sql, "s.rowid ASC", leases)
  })

export const layer = (options: SqliteStoreOptions): Layer.Layer<EventStore, StoreFailure> =>
  Layer.scoped(EventStore, make(options))
