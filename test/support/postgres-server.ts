import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted, Schedule, type Scope } from "effect"
import { execFile } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * A throwaway PostgreSQL server per test file, started from the Debian `postgresql` package's
 * binaries (no container, no network). Each test location gets a fresh database on it.
 */

const PG_ROOT = "/usr/lib/postgresql"

/** The newest installed major version's bin directory that has initdb, if any. */
const findBin = (): string | undefined => {
  if (!existsSync(PG_ROOT)) return undefined
  return readdirSync(PG_ROOT)
    .filter((version) => /^\d+(\.\d+)?$/.test(version) && existsSync(join(PG_ROOT, version, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(PG_ROOT, version, "bin"))[0]
}

const bin = findBin()

export const postgresAvailable = bin !== undefined

export const postgresSkipMessage = "PostgreSQL's initdb not found: install the postgresql package (.ci/run does)"

/** A suite's name, saying why it was skipped when it is. */
export const postgresSuite = (name: string) => (postgresAvailable ? name : `${name} (SKIPPED: ${postgresSkipMessage})`)

export interface PgServer {
  readonly port: number
  /** A connection URL for a database on this server. */
  readonly url: (database: string) => string
  /** A new empty database (the connection URL), left for the server's removal to clean up. */
  readonly freshDatabase: Effect.Effect<string>
}

// initdb refuses to run as root, so as root the server's programs run as the `postgres` user.
const asRoot = process.getuid?.() === 0

const run = (program: string, args: ReadonlyArray<string>) =>
  Effect.async<string, Error>((resume) => {
    const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, [...args]]
    execFile(file, argv, { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error === null) resume(Effect.succeed(stdout))
      else resume(Effect.fail(new Error(`${program} ${args.join(" ")} failed: ${stderr || error.message}`, { cause: error })))
    })
  })

const freePort = Effect.async<number, Error>((resume) => {
  const server = createServer()
  server.once("error", (error) => resume(Effect.fail(error)))
  server.listen(0, "127.0.0.1", () => {
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    server.close(() => resume(port === 0 ? Effect.fail(new Error("no free port")) : Effect.succeed(port)))
  })
})

const serverDir = Effect.acquireRelease(
  Effect.sync(() => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "pg-test-")))
    if (asRoot) chownSync(dir, postgresUid(), 0)
    return dir
  }),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const postgresUid = () => {
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((entry) => entry.startsWith("postgres:"))
  const uid = Number(line?.split(":")[2])
  if (!Number.isInteger(uid)) throw new Error("running as root, but there is no postgres user to run initdb as")
  return uid
}

const logOf = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").slice(-2000) : "")

/** pg_ctl start on a free port; stopped (fast: clients are disconnected) with the scope. */
const startOn = (pgBin: string, dir: string) =>
  Effect.gen(function* () {
    const port = yield* freePort
    const data = join(dir, "data")
    const log = join(dir, "server.log")
    const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=200`
    yield* Effect.acquireRelease(
      run(join(pgBin, "pg_ctl"), ["-D", data, "-l", log, "-w", "-t", "30", "-o", options, "start"]).pipe(
        Effect.mapError((error) => new Error(`${error.message}\n${logOf(log)}`, { cause: error }))
      ),
      () => Effect.orDie(run(join(pgBin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "stop"]))
    )
    return port
  })

/** A plain client (its own pool) on a database, closed with the scope: for what a test does beside the store. */
export const connect = (url: string) => PgClient.make({ url: Redacted.make(url) }).pipe(Effect.provide(Reactivity.layer))

/** Starts a server in a temporary directory; stops it and removes the directory with the scope. */
export const startServer: Effect.Effect<PgServer, Error, Scope.Scope> = Effect.gen(function* () {
  if (bin === undefined) return yield* Effect.fail(new Error(postgresSkipMessage))
  const dir = yield* serverDir
  yield* run(join(bin, "initdb"), ["-D", join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
  // Another test file may take the port between our probe and the server's bind: try another.
  const port = yield* Effect.retry(startOn(bin, dir), Schedule.recurs(2))
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`
  const admin = yield* connect(url("postgres"))
  let databases = 0
  const freshDatabase = Effect.suspend(() => {
    const name = `test_${++databases}`
    return Effect.as(admin.unsafe(`CREATE DATABASE ${name}`), url(name))
  }).pipe(Effect.orDie)
  return { port, url, freshDatabase }
})
