import { PgClient } from "@effect/sql-pg"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type { StoreFailure } from "../../domain/errors.js"
import { EventStore, type EventStoreShape } from "../../services/EventStore.js"
import { migrate } from "./postgres-migrations.js"
import { makePostgresLog } from "./postgres-log.js"
import { DEFAULT_LEASE_TTL_MS, makeSqlLeases } from "./sql-leases.js"
import { storeFailure } from "./store-failure.js"
import { sqlStore } from "./sql-store.js"

export { migrate } from "./postgres-migrations.js"
export { type AppendNotice, APPEND_CHANNEL, listenAppends } from "./postgres-notify.js"

export interface PostgresStoreOptions {
  /** A connection URL, e.g. `postgres://user:password@host:5432/database`. */
  readonly url: string
}

/** The database's clock in milliseconds: runners on several machines compare expiries by one clock. */
const POSTGRES_NOW_MS = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"

/**
 * The store on a PostgreSQL database, for several processes sharing one log: the same tables
 * and rules as the SQLite store, the primary key (session_id, sequence) as the fence between
 * writers, and a `pg_notify` on APPEND_CHANNEL with every committed append (see
 * `listenAppends`). Migrates first. On a client the caller provides (one it shares with, say,
 * the cluster's storage): the store reads its rows without the client's name transforms.
 */
export const makeWithClient: Effect.Effect<EventStoreShape, StoreFailure, PgClient.PgClient> = Effect.gen(function* () {
  const sql = (yield* PgClient.PgClient).withoutTransforms()
  yield* migrate
  const leases = makeSqlLeases(sql, { ttlMs: DEFAULT_LEASE_TTL_MS, nowMs: POSTGRES_NOW_MS })
  // Ties in creation order, as far as Postgres (which has no rowid) can tell.
  return sqlStore(makePostgresLog(sql), sql, "s.created_at ASC, s.session_id ASC", leases)
})

export const layerWithClient: Layer.Layer<EventStore, StoreFailure, PgClient.PgClient> = Layer.effect(EventStore, makeWithClient)

/** A connection pool of the store's own (closed when the layer is released) and the store on it. */
export const layer = (options: PostgresStoreOptions): Layer.Layer<EventStore, StoreFailure> =>
  Layer.provide(
    layerWithClient,
    PgClient.layer({ url: Redacted.make(options.url), applicationName: "custom-agent" }).pipe(Layer.mapError(storeFailure("open")))
  )

/** `layer` as a scoped constructor: the pool closes with the scope. */
export const make = (options: PostgresStoreOptions): Effect.Effect<EventStoreShape, StoreFailure, Scope.Scope> =>
  Effect.map(Layer.build(layer(options)), Context.get(EventStore))
