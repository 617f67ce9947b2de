import * as Runner from "@effect/cluster/Runner"
import * as RunnerAddress from "@effect/cluster/RunnerAddress"
import * as RunnerStorage from "@effect/cluster/RunnerStorage"
import * as ShardId from "@effect/cluster/ShardId"
import * as ShardingConfig from "@effect/cluster/ShardingConfig"
import * as SqlRunnerStorage from "@effect/cluster/SqlRunnerStorage"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer, Redacted } from "effect"
import { migrateDatabase } from "../../../src/layers/cluster/migrations.js"
import { clusterStatus, runnerApplicationName, shardLockKeys } from "../../../src/layers/cluster/status.js"
import { runCli } from "../../support/cli.js"
import { postgresAvailable, postgresSuite, serverForFile } from "../../support/postgres.js"

/** A pool named `applicationName` on `url`, closed with the scope. */
const pool = (url: string, applicationName: string) =>
  Layer.build(PgClient.layer({ url: Redacted.make(url), applicationName })).pipe(Effect.map(Context.get(PgClient.PgClient)))

/**
 * A runner's storage as a runner builds it: SqlRunnerStorage on a pool opened with the runner
 * application name. It registers the runner and takes `shards` of the default group through
 * the storage's own locking (a reserved connection of that pool); all is released with the scope.
 */
const runnerHolding = (url: string, host: string, port: number, shards: ReadonlyArray<number>) =>
  Effect.gen(function* () {
    const address = RunnerAddress.make(host, port)
    const context = yield* Layer.build(
      SqlRunnerStorage.layer.pipe(
        Layer.provide(PgClient.layer({ url: Redacted.make(url), applicationName: runnerApplicationName(`${host}:${port}`) })),
        Layer.provide(ShardingConfig.layerDefaults)
      )
    )
    const storage = Context.get(context, RunnerStorage.RunnerStorage)
    yield* storage.register(Runner.make({ address, groups: ["default"], weight: 1 }), true)
    const acquired = yield* storage.acquire(
      address,
      shards.map((shard) => ShardId.make("default", shard))
    )
    expect(acquired.map((shardId) => shardId.id).sort((a, b) => a - b)).toEqual([...shards].sort((a, b) => a - b))
    return storage
  })

/** Holds the session advisory lock `key` on one connection of `sql`'s, for the scope. */
const holdLock = (sql: PgClient.PgClient, key: number) =>
  Effect.gen(function* () {
    const connection = yield* sql.reserve
    yield* connection.executeUnprepared(`SELECT pg_advisory_lock(${key})`, [], undefined)
  })

const LONG_HOST = "runner-with-a-rather-long-name.eu-west-1.compute.internal"

describe("runner application names", () => {
  it("name the runner by its address, cut to the 63 bytes Postgres keeps", () => {
    expect(runnerApplicationName("10.0.0.7:34431")).toBe("custom-agent runner 10.0.0.7:34431")
    expect(runnerApplicationName(`${LONG_HOST}:34431`)).toHaveLength(63)
    expect(runnerApplicationName(`${LONG_HOST}:34431`)).toBe(`custom-agent runner ${LONG_HOST}:34431`.slice(0, 63))
  })

  it("shard lock keys follow SqlRunnerStorage's numbering: groups sorted, a million apart", () => {
    expect(shardLockKeys(ShardingConfig.defaults)).toHaveLength(300)
    expect(shardLockKeys(ShardingConfig.defaults)[0]).toBe(1_000_001)
    expect(shardLockKeys({ availableShardGroups: ["b", "a"], shardsPerGroup: 2 })).toEqual([1_000_001, 1_000_002, 2_000_001, 2_000_002])
  })
})

describe.skipIf(!postgresAvailable)(postgresSuite("cluster status"), () => {
  const server = serverForFile()
  const database = Effect.suspend(() => server().freshDatabase)

  it.live("counts each runner's shard locks, and only those: not other advisory locks nor other connections' shard-numbered ones", () =>
    Effect.gen(function* () {
      const url = yield* database
      yield* migrateDatabase(url)
      yield* runnerHolding(url, "10.0.0.2", 34431, [1, 2, 3, 4, 5])
      yield* runnerHolding(url, LONG_HOST, 34431, [6, 7, 8])
      yield* runnerHolding(url, "10.0.0.1", 34431, [])
      // A runner's pool holding a lock that is no shard's (ours for migrations, any other).
      const runnerPool = yield* pool(url, runnerApplicationName("10.0.0.2:34431"))
      yield* holdLock(runnerPool, 7_202_603_001)
      yield* holdLock(runnerPool, 42)
      // A shard-numbered lock on a connection that is not a runner's.
      yield* holdLock(yield* pool(url, "someone else"), 1_000_299)
      // Another cluster on the same server, a runner of the same address in it: advisory locks are per database.
      const elsewhere = yield* database
      yield* migrateDatabase(elsewhere)
      yield* runnerHolding(elsewhere, "10.0.0.2", 34431, [1, 2, 3, 4, 5, 6, 7, 8, 9])

      const runners = yield* clusterStatus(url)
      expect(runners.map(({ address, healthy, shards }) => ({ address, healthy, shards }))).toEqual([
        { address: "10.0.0.1:34431", healthy: true, shards: 0 },
        { address: "10.0.0.2:34431", healthy: true, shards: 5 },
        { address: `${LONG_HOST}:34431`, healthy: true, shards: 3 }
      ])
      for (const runner of runners) {
        expect(runner.lastHeartbeat).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
        // Just registered, by the database's clock and by ours (the test server is local).
        expect(runner.secondsSinceHeartbeat).toBeLessThan(30)
        expect(Math.abs(Date.parse(runner.lastHeartbeat) - Date.now())).toBeLessThan(30_000)
      }

      const listed = yield* Effect.promise(() => runCli(["cluster", "status", "--database", url]))
      expect(listed).toMatchObject({ code: 0, stderr: "" })
      const lines = listed.stdout.trimEnd().split("\n")
      expect(lines).toHaveLength(4)
      expect(lines[0]).toMatch(/^ADDRESS +HEALTHY +LAST HEARTBEAT +SHARDS$/)
      expect(lines[1]).toMatch(/^10\.0\.0\.1:34431 +yes +\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC \(\d+s ago\) +0$/)
      expect(lines[2]).toMatch(/ 5$/)
      expect(lines[3]).toMatch(new RegExp(`^${LONG_HOST.replaceAll(".", "\\.")}:34431 .* 3$`))
      // Aligned: every column starts at the same place on every line.
      const header = lines[0] ?? ""
      for (const column of ["HEALTHY", "LAST HEARTBEAT", "SHARDS"]) {
        const at = header.indexOf(column)
        for (const line of lines.slice(1)) expect(line[at - 1]).toBe(" ")
        for (const line of lines.slice(1)) expect(line[at]).not.toBe(" ")
      }

      const asJson = yield* Effect.promise(() => runCli(["cluster", "status", "--database", url, "--json"]))
      expect(asJson.code).toBe(0)
      const parsed: unknown = JSON.parse(asJson.stdout)
      expect(parsed).toEqual([
        { address: "10.0.0.1:34431", healthy: true, lastHeartbeat: expect.any(String), shards: 0 },
        { address: "10.0.0.2:34431", healthy: true, lastHeartbeat: expect.any(String), shards: 5 },
        { address: `${LONG_HOST}:34431`, healthy: true, lastHeartbeat: expect.any(String), shards: 3 }
      ])
    }).pipe(Effect.scoped))

  it.live("a runner marked unhealthy, or whose connections are gone, is listed with its health and no shards", () =>
    Effect.gen(function* () {
      const url = yield* database
      yield* migrateDatabase(url)
      const staying = yield* runnerHolding(url, "10.0.0.3", 34431, [10, 11])
      yield* staying.setRunnerHealth(RunnerAddress.make("10.0.0.3", 34431), false)
      // A runner whose storage (and pool) closes without unregistering, as a killed process's would.
      yield* Effect.scoped(runnerHolding(url, "10.0.0.4", 34431, [12, 13, 14]))

      // Postgres drops a closed connection's locks as its backend exits, a moment after the close.
      const runners = yield* clusterStatus(url).pipe(
        Effect.tap(() => Effect.sleep("50 millis")),
        Effect.repeat({ until: (found) => found.find((r) => r.address === "10.0.0.4:34431")?.shards === 0 }),
        Effect.timeout("5 seconds")
      )
      expect(runners.map(({ address, healthy, shards }) => ({ address, healthy, shards }))).toEqual([
        { address: "10.0.0.3:34431", healthy: false, shards: 2 },
        { address: "10.0.0.4:34431", healthy: true, shards: 0 }
      ])
    }).pipe(Effect.scoped))

  it.live("no runners: an empty list, one clear line, and [] in JSON", () =>
    Effect.gen(function* () {
      const url = yield* database
      yield* migrateDatabase(url)
      expect(yield* clusterStatus(url)).toEqual([])

      const listed = yield* Effect.promise(() => runCli(["cluster", "status", "--database", url]))
      expect(listed).toEqual({ code: 0, stdout: "no runners have registered in this database\n", stderr: "" })
      const asJson = yield* Effect.promise(() => runCli(["cluster", "status", "--database", url, "--json"]))
      expect(asJson).toEqual({ code: 0, stdout: "[]\n", stderr: "" })
    }))

  it.live("a database not migrated says to run `custom-agent cluster migrate`: one line on stderr, exit 1", () =>
    Effect.gen(function* () {
      const url = yield* database
      const failure = yield* Effect.flip(clusterStatus(url))
      expect(failure._tag).toBe("StoreFailure")
      expect(failure.message).toContain("custom-agent cluster migrate")

      const failed = yield* Effect.promise(() => runCli(["cluster", "status", "--database", url]))
      expect(failed.code).toBe(1)
      expect(failed.stdout).toBe("")
      expect(failed.stderr.trim().split("\n")).toHaveLength(1)
      expect(failed.stderr).toContain("run `custom-agent cluster migrate`")
    }))

  it.live("a database it cannot reach is one clear line on stderr and exit 1", () =>
    Effect.gen(function* () {
      const unreachable = new URL(yield* database)
      unreachable.pathname = "/no_such_database"
      const failure = yield* Effect.exit(clusterStatus(unreachable.toString()))
      expect(Exit.isFailure(failure)).toBe(true)

      const failed = yield* Effect.promise(() => runCli(["cluster", "status", "--database", unreachable.toString(), "--json"]))
      expect(failed.code).toBe(1)
      expect(failed.stdout).toBe("")
      expect(failed.stderr.trim().split("\n")).toHaveLength(1)
      expect(failed.stderr).toContain("no_such_database")

      // Nothing listening at all.
      const closed = new URL(unreachable)
      closed.port = "1"
      const refused = yield* Effect.promise(() => runCli(["cluster", "status", "--database", closed.toString()]))
      expect(refused.code).toBe(1)
      expect(refused.stderr.trim().split("\n")).toHaveLength(1)
    }))
})
