import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import { stdout } from "../io.js"

const database = Options.text("database").pipe(
  Options.withDescription("The cluster's PostgreSQL database, as a URL (postgres://user:password@host:5432/name)")
)

/** The cluster code and the Postgres driver load only when this runs: other commands never pay for them. */
const migrateCommand = Command.make("migrate", { database }, (args) =>
  Effect.gen(function* () {
    const migrations = yield* Effect.promise(() => import("../../layers/cluster/migrations.js"))
    yield* migrations.migrateDatabase(args.database)
    yield* stdout("the event store's and the cluster's tables are in place\n")
  })
).pipe(
  Command.withDescription(
    "Create the event store's and the cluster's tables, once, before any runner starts (safe to repeat, and from several machines at once)"
  )
)

export const clusterCommand = Command.make("cluster").pipe(
  Command.withDescription("Run sessions on several machines over PostgreSQL"),
  Command.withSubcommands([migrateCommand])
)
