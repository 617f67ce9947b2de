import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { migrateDatabase } from "../../../src/layers/cluster/migrations.js"
import { runCli } from "../../support/cli.js"
import { connect, postgresAvailable, postgresSuite, serverForFile } from "../../support/postgres.js"

const tablesOf = (url: string) =>
  Effect.scoped(
    Effect.flatMap(connect(url), (sql) =>
      Effect.map(
        sql<{ readonly table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
        (rows) => rows.map((row) => row.table_name)
      )
    )
  )

describe.skipIf(!postgresAvailable)(postgresSuite("cluster migrate"), () => {
  const server = serverForFile()
  const database = Effect.suspend(() => server().freshDatabase)

  it.live("processes migrating an empty database at the same instant all succeed; the store's and the cluster's tables are there", () =>
    Effect.gen(function* () {
      for (let round = 0; round < 3; round++) {
        const url = yield* database
        yield* Effect.all([migrateDatabase(url), migrateDatabase(url), migrateDatabase(url)], { concurrency: "unbounded" })
        const tables = yield* tablesOf(url)
        expect(tables).toEqual(expect.arrayContaining(["events", "sessions", "cluster_runners", "cluster_messages", "cluster_replies"]))
        // Again: nothing to do, nothing fails.
        yield* migrateDatabase(url)
      }
    }))

  it.live("the CLI migrates, and a database it cannot reach is one clear line and exit 1", () =>
    Effect.gen(function* () {
      const url = yield* database
      const done = yield* Effect.promise(() => runCli(["cluster", "migrate", "--database", url]))
      expect(done).toMatchObject({ code: 0 })
      expect(done.stdout).toContain("tables are in place")
      expect(yield* tablesOf(url)).toContain("cluster_runners")

      const unreachable = new URL(url)
      unreachable.pathname = "/no_such_database"
      const failed = yield* Effect.promise(() => runCli(["cluster", "migrate", "--database", unreachable.toString()]))
      expect(failed.code).toBe(1)
      expect(failed.stderr.trim().split("\n")).toHaveLength(1)
      expect(failed.stderr).toContain("no_such_database")
    }))
})
