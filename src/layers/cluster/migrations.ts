import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SqlMessageStorage from "@effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import type { StoreFailure } from "../../domain/errors.js"
import { driverDefectsAsFailures } from "../event-store/postgres-errors.js"
import { migrate as migrateStore, withAdvisoryLock } from "../event-store/postgres-migrations.js"
import { storeFailure } from "../event-store/store-failure.js"

/** The advisory lock key of the cluster's table creation (the store's migrations hold another). */
const CLUSTER_MIGRATION_LOCK = 7_202_603_002

/**
 * The cluster's tables (runners, messages, replies), as @effect/cluster creates them when its
 * SQL storage is built; with default settings, shard locks are advisory locks and need no table.
 */
const clusterTables = Effect.scoped(
  Layer.build(Layer.mergeAll(SqlMessageStorage.layer, SqlRunnerStorage.layer).pipe(Layer.provide(ShardingConfig.layerDefaults)))
)

/**
 * Creates the cluster's tables under its advisory lock: runners starting together on an empty
 * database race on the cluster's `CREATE TABLE IF NOT EXISTS` (one dies on a duplicate
 * pg_type), so they are made once, before any runner starts. Safe to run again and from
 * several processes at once.
 */
export const migrateClusterTables: Effect.Effect<void, StoreFailure, PgClient.PgClient> = Effect.flatMap(PgClient.PgClient, (sql) =>
  withAdvisoryLock(CLUSTER_MIGRATION_LOCK, clusterTables.pipe(Effect.provideService(SqlClient.SqlClient, sql))).pipe(
    driverDefectsAsFailures,
    Effect.mapError(storeFailure("migrate the cluster's tables"))
  )
)

/** The event store's tables and the cluster's, each under its advisory lock (`cluster migrate`). */
export const migrateCluster: Effect.Effect<void, StoreFailure, PgClient.PgClient> = Effect.zipRight(migrateStore, migrateClusterTables)

/** `migrateCluster` on a pool of its own, closed when done. */
export const migrateDatabase = (url: string): Effect.Effect<void, StoreFailure> =>
  migrateCluster.pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), applicationName: "custom-agent migrate" }).pipe(Layer.mapError(storeFailure("open"))))
  )
