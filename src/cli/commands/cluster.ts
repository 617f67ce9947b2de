import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import { stdout } from "../io.js"
import { warnPasswordInUrl } from "../secret-arguments.js"
import { formatTable } from "../table.js"
import { jsonText } from "../terminal-text.js"

const database = Options.text("database").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription(
    "The cluster's PostgreSQL database, as a URL (postgres://user@host:5432/name); give the password in PGPASSWORD or ~/.pgpass, not in the URL, which every local user can read"
  )
)

/** The cluster code and the Postgres driver load only when this runs: other commands never pay for them. */
const migrateCommand = Command.make("migrate", { database }, (args) =>
  Effect.gen(function* () {
    yield* warnPasswordInUrl("--database", args.database)
    const migrations = yield* Effect.promise(() => import("../../layers/cluster/migrations.js"))
    yield* migrations.migrateDatabase(args.database)
    yield* stdout("the event store's and the cluster's tables are in place\n")
  })
).pipe(
  Command.withDescription(
    "Create the event store's and the cluster's tables, once, before any runner starts (safe to repeat, and from several machines at once)"
  )
)

const json = Options.boolean("json").pipe(
  Options.withDescription("Print the runners as one JSON array of { address, healthy, lastHeartbeat, shards }")
)

/** Two units at the most ("4s", "2m 5s", "3h 12m", "2d 4h"): enough to tell a live runner from a gone one. */
const elapsed = (seconds: number): string => {
  const s = Math.floor(seconds)
  if (s < 60) return `${s}s`
  if (s < 3_600) return `${Math.floor(s / 60)}m ${s % 60}s`
  if (s < 86_400) return `${Math.floor(s / 3_600)}h ${Math.floor((s % 3_600) / 60)}m`
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3_600)}h`
}

/** Like `migrate`, the cluster code and the driver load only when this runs. */
const statusCommand = Command.make("status", { database, json }, (args) =>
  Effect.gen(function* () {
    yield* warnPasswordInUrl("--database", args.database)
    const status = yield* Effect.promise(() => import("../../layers/cluster/status.js"))
    const runners = yield* status.clusterStatus(args.database)
    if (args.json) {
      const entries = runners.map(({ address, healthy, lastHeartbeat, shards }) => ({ address, healthy, lastHeartbeat, shards }))
      return yield* stdout(jsonText(`${JSON.stringify(entries)}\n`))
    }
    if (runners.length === 0) return yield* stdout("no runners have registered in this database\n")
    const rows = runners.map((runner) => [
      runner.address,
      runner.healthy ? "yes" : "no",
      `${runner.lastHeartbeat.slice(0, 19).replace("T", " ")} UTC (${elapsed(runner.secondsSinceHeartbeat)} ago)`,
      String(runner.shards)
    ])
    yield* stdout(formatTable(["ADDRESS", "HEALTHY", "LAST HEARTBEAT", "SHARDS"], rows))
  })
).pipe(
  Command.withDescription(
    "List the cluster's runners: address, health, last heartbeat and how many shards each holds now (a runner that is gone keeps its row, with an old heartbeat and no shards, until the cluster clears it)"
  )
)

export const clusterCommand = Command.make("cluster").pipe(
  Command.withDescription("Run sessions on several machines over PostgreSQL"),
  Command.withSubcommands([migrateCommand, statusCommand])
)
