import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import { SqlSchema } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { StoreFailure } from "../../domain/errors.js"
import { isUndefinedTable } from "../event-store/postgres-errors.js"
import { storeFailure } from "../event-store/store-failure.js"

const RUNNER_PREFIX = "custom-agent runner "

/**
 * Postgres keeps the first NAMEDATALEN - 1 bytes of an application name (63 in a default
 * build) and shows that in pg_stat_activity. Runner addresses are ASCII (host names, IPs), so
 * bytes are characters here.
 */
const APPLICATION_NAME_LENGTH = 63

/**
 * The `application_name` a runner's Postgres pool is opened with, from its runner address
 * (`host:port`, as in `cluster_runners.address`). It is how `cluster status` tells whose
 * connection holds a shard lock: advisory locks in pg_locks name only a backend pid. Cut to
 * what Postgres keeps, so the name a runner sends is the name the status compares with.
 */
export const runnerApplicationName = (address: string): string => `${RUNNER_PREFIX}${address}`.slice(0, APPLICATION_NAME_LENGTH)

/** What the shard numbering depends on; a runner's ShardingConfig has both. */
export type ShardNumbering = Pick<ShardingConfig.ShardingConfig["Type"], "availableShardGroups" | "shardsPerGroup">

/**
 * The advisory lock keys SqlRunnerStorage takes for shards with advisory locks on (the
 * default): the groups sorted by name, the i-th one's shards at (i + 1) * 1,000,000 + 1 up to
 * + shardsPerGroup. @effect/cluster 0.60 keeps this numbering private, so it is mirrored here;
 * the status tests hold locks through the real SqlRunnerStorage and check the counts, so a
 * change upstream shows there. Our migration locks (7202603001 and 7202603002) are not in it.
 */
export const shardLockKeys = (numbering: ShardNumbering): ReadonlyArray<number> =>
  Array.from(new Set(numbering.availableShardGroups.slice().sort())).flatMap((_group, i) =>
    Array.from({ length: numbering.shardsPerGroup }, (_shard, index) => (i + 1) * 1_000_000 + index + 1)
  )

export interface RunnerStatus {
  /** `host:port`, as the runner registered itself. */
  readonly address: string
  readonly healthy: boolean
  /** The runner's last heartbeat, as an ISO 8601 UTC timestamp. */
  readonly lastHeartbeat: string
  /** Seconds from the last heartbeat to now, both by the database's clock. */
  readonly secondsSinceHeartbeat: number
  /** How many shard locks the runner's connections hold now. */
  readonly shards: number
}

const RunnerRow = Schema.Struct({
  address: Schema.String,
  healthy: Schema.Boolean,
  last_heartbeat: Schema.String,
  seconds_since: Schema.Number
})

const HolderRow = Schema.Struct({ application_name: Schema.String, shards: Schema.Number })

const OPERATION = "read the cluster's runners"

const notMigrated = (cause: unknown) =>
  new StoreFailure({
    operation: OPERATION,
    reason: "this database has no cluster tables: run `custom-agent cluster migrate` on it first",
    cause
  })

/**
 * The registered runners, sorted by address, with the shards each holds now.
 *
 * `last_heartbeat` is a `timestamp` without time zone that runners set to NOW() in their
 * session's time zone: it is read in ours (the same server default unless someone changed it)
 * and turned into UTC by the database, and its age is taken against the database's clock, so
 * neither this machine's clock nor its zone matters.
 *
 * Shards are counted from pg_locks: the granted advisory locks on shard keys in this database,
 * per backend, named through pg_stat_activity by the runner application name of the connection
 * that holds them (SqlRunnerStorage keeps a reserved connection of the runner's pool for its
 * locks). A bigint advisory lock shows its high half in `classid`, its low half in `objid`.
 * Reading both tables is not atomic with the runners' query: a shard moving meanwhile may
 * count for neither or both runners, which a status line can live with.
 */
export const readRunners = (
  numbering: ShardNumbering = ShardingConfig.defaults
): Effect.Effect<ReadonlyArray<RunnerStatus>, StoreFailure, PgClient.PgClient> =>
  Effect.gen(function* () {
    const sql = (yield* PgClient.PgClient).withoutTransforms()
    const runners = yield* SqlSchema.findAll({
      Request: Schema.Void,
      Result: RunnerRow,
      execute: () => sql`
        SELECT address, healthy,
               to_char((last_heartbeat AT TIME ZONE current_setting('TimeZone')) AT TIME ZONE 'UTC',
                       'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_heartbeat,
               EXTRACT(EPOCH FROM (LOCALTIMESTAMP - last_heartbeat))::float8 AS seconds_since
        FROM cluster_runners
        ORDER BY address`
    })(undefined)
    const holders = yield* SqlSchema.findAll({
      Request: Schema.Array(Schema.Number),
      Result: HolderRow,
      execute: (keys) => sql`
        SELECT a.application_name, count(*)::int AS shards
        FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND ((l.classid::bigint << 32) | l.objid::bigint) = ANY(${keys}::bigint[])
          AND starts_with(a.application_name, ${RUNNER_PREFIX})
        GROUP BY a.application_name`
    })(shardLockKeys(numbering))
    const shardsOf = new Map(holders.map((holder) => [holder.application_name, holder.shards]))
    return runners.map((row) => ({
      address: row.address,
      healthy: row.healthy,
      lastHeartbeat: row.last_heartbeat,
      // LOCALTIMESTAMP is the statement's start: a heartbeat written while it ran is a little ahead.
      secondsSinceHeartbeat: Math.max(0, row.seconds_since),
      shards: shardsOf.get(runnerApplicationName(row.address)) ?? 0
    }))
  }).pipe(Effect.catchAll((error) => Effect.fail(isUndefinedTable(error) ? notMigrated(error) : storeFailure(OPERATION)(error))))

/** `readRunners` on a connection pool of its own, closed when done. */
export const clusterStatus = (url: string, numbering?: ShardNumbering): Effect.Effect<ReadonlyArray<RunnerStatus>, StoreFailure> =>
  readRunners(numbering).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), applicationName: "custom-agent status" }).pipe(Layer.mapError(storeFailure("open"))))
  )
