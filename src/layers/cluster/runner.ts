import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import { PgClient } from "@effect/sql-pg"
import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as Duration from "effect/Duration"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { StoreFailure } from "../../domain/errors.js"
import { messageOf } from "../../domain/cause-message.js"
import * as PostgresFeed from "../event-store/postgres-feed.js"
import * as PostgresStore from "../event-store/postgres.js"
import { storeFailure } from "../event-store/store-failure.js"
import { migrateClusterTables } from "./migrations.js"
import { runnerApplicationName } from "./status.js"

export interface RunnerOptions {
  /** The shared database. */
  readonly url: string
  /** Where other runners reach this one: given explicitly, never read from HOST/PORT. */
  readonly host: string
  readonly port: number
  /** How long a dead runner's shards stay locked before another takes them (the shard lock's expiry). */
  readonly failoverAfter: Duration.Duration
}

/**
 * A runner's connection to the cluster: one Postgres pool (build both layers in one go, so it
 * is shared) for the event store, the append feed and the cluster's storage; sharding over the
 * runner-to-runner socket on the given address, which has no authentication: bind it to a
 * private address. Shard locks expire after `failoverAfter` and are refreshed at a third of it.
 */
export const runnerLayers = (options: RunnerOptions) => {
  const address = `${options.host}:${options.port}`
  const pg = PgClient.layer({ url: Redacted.make(options.url), applicationName: runnerApplicationName(address) }).pipe(
    Layer.mapError(storeFailure("open"))
  )
  const sharding = NodeClusterSocket.layer({
    storage: "sql",
    shardingConfig: {
      runnerAddress: Option.some(RunnerAddress.make(options.host, options.port)),
      shardLockExpiration: options.failoverAfter,
      shardLockRefreshInterval: Duration.divide(options.failoverAfter, 3).pipe(Option.getOrElse(() => Duration.seconds(1)))
    }
  }).pipe(Layer.mapError((error) => new StoreFailure({ operation: "start the cluster runner", reason: messageOf(error), cause: error })))
  // The cluster's tables first, under their advisory lock: runners starting together on an
  // empty database would otherwise race on the cluster's own table creation. The store's
  // layer migrates the store's tables.
  const migrated = Layer.effectDiscard(migrateClusterTables).pipe(Layer.provide(pg))
  return {
    address,
    store: PostgresStore.layerWithClient.pipe(Layer.provide(pg)),
    cluster: Layer.merge(PostgresFeed.layer, sharding).pipe(Layer.provide(Layer.merge(pg, migrated)))
  }
}
