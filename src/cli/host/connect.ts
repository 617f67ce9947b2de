import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schedule from "effect/Schedule"
import { existsSync } from "node:fs"
import { packageVersion } from "../../app/package-root.js"
import { spawnDetached } from "../../layers/detached-process.js"
import { checkDataDir, claimDataDir } from "../../layers/private-files.js"
import { readBoundedTail } from "./log-tail.js"
import { CliError } from "../errors.js"
import { keptToken } from "../kept-token.js"
import { hostLogPath, hostSocketPath, socketPathProblem } from "./host-files.js"
import { type HostProbe, probeHost } from "./probe.js"
import type { HostStatus } from "../../rpc/host-control.js"
import { HostControlClient, hostControlLayer } from "../../rpc/socket-client.js"

/** A live host of this version, and how to reach it. */
export interface LocalHost {
  readonly path: string
  readonly token: string
  readonly status: HostStatus
}

/** How long a host started here may take to answer (a cold start builds the store and the sandbox check). */
const START_TIMEOUT = Duration.seconds(30)

/** Whether `version` is older than this one's (numeric parts compared in order; text that is not a version counts as older). */
export const isOlderVersion = (version: string, than: string = packageVersion()): boolean => {
  const parts = (text: string) => text.split(/[.+-]/).slice(0, 3).map((part) => Number(part))
  const [mine, theirs] = [parts(than), parts(version)]
  if (theirs.some((part) => !Number.isInteger(part))) return true
  for (let i = 0; i < 3; i++) {
    const difference = (theirs[i] ?? 0) - (mine[i] ?? 0)
    if (difference !== 0) return difference < 0
  }
  return false
}

/**
 * A host of another version is not used: it may read a request differently. One older than
 * this client was asked to stop once its turns end (`retired`), so the next start runs this
 * version; a newer one is left alone.
 */
const versionProblem = (dataDir: string, status: HostStatus, retired: boolean): CliError => {
  const turns = status.working.length
  const what = `the local host of ${dataDir} runs custom-agent ${status.version}, this is ${packageVersion()}: `
  if (retired) {
    return new CliError({
      message: what + (turns === 0 ? "it was asked to stop, and the next client starts one of this version" : `it was asked to stop once its ${turns} running turn(s) end, and the next client then starts one of this version`)
    })
  }
  return new CliError({
    message:
      what +
      (turns === 0
        ? "`custom-agent host stop` ends it (no turn runs there), and the next client starts one of this version"
        : `it runs ${turns} turn(s); \`custom-agent host stop\` ends it once they finish (\`--now\` interrupts them)`)
  })
}

/** Asks the host on `path` to stop once no turn runs (at once when none does). */
const askToStopWhenIdle = (path: string, token: string): Effect.Effect<void, CliError> =>
  Effect.flatMap(HostControlClient, (control) => control.StopHost({ when: "idle" })).pipe(
    Effect.scoped,
    Effect.provide(hostControlLayer({ path, token })),
    Effect.mapError((error) => new CliError({ message: `cannot ask the local host to stop: ${String(error)}`, cause: error }))
  )

/** A host of another version found at `path`: one older than this client is retired (asked to stop once idle); the error says what happens. */
const otherVersion = (dataDir: string, path: string, token: string, status: HostStatus): Effect.Effect<never, CliError> =>
  isOlderVersion(status.version)
    ? Effect.zipRight(askToStopWhenIdle(path, token), Effect.fail(versionProblem(dataDir, status, true)))
    : Effect.fail(versionProblem(dataDir, status, false))

interface Probed {
  readonly path: string
  readonly token: string
  readonly found: HostProbe
}

/** What is at `dataDir`'s host socket, with the token to ask it. */
export const probeDataDir = (dataDir: string): Effect.Effect<Probed, CliError> =>
  Effect.gen(function* () {
    // A folder another user could write may hold their socket: refused before it is looked at.
    yield* Effect.mapError(checkDataDir(dataDir), (refused) => new CliError({ message: refused.message, cause: refused }))
    const path = hostSocketPath(dataDir)
    const tooLong = socketPathProblem(path)
    if (tooLong !== undefined) return yield* new CliError({ message: tooLong })
    // No socket, no host: the token file is not read (nor made).
    if (!existsSync(path)) return { path, token: "", found: { _tag: "Missing" } satisfies HostProbe }
    const token = (yield* keptToken(dataDir, false)).value
    return { path, token, found: yield* probeHost(path, token) }
  })

/** The host of `dataDir` when one of this version answers; none when none runs. Another version, or a socket that refuses us, is an error saying what to do. */
export const runningHost = (dataDir: string): Effect.Effect<LocalHost | undefined, CliError> => Effect.flatMap(probeDataDir(dataDir), hostFrom(dataDir))

/** What a probe of `dataDir`'s socket found, as `runningHost` answers it. */
const hostFrom =
  (dataDir: string) =>
  ({ path, token, found }: Probed): Effect.Effect<LocalHost | undefined, CliError> => {
    switch (found._tag) {
      case "Missing":
      case "Stale":
        return Effect.succeed(undefined)
      case "Refused":
        return Effect.fail(new CliError({ message: `the local host's socket ${path} ${found.reason}` }))
      case "Live":
        return found.status.version === packageVersion() ? Effect.succeed({ path, token, status: found.status }) : otherVersion(dataDir, path, token, found.status)
    }
  }

/** Waits until no host answers at `dataDir` (the one with pid `pid` has stopped). */
export const untilGone = (dataDir: string, pid: number): Effect.Effect<void, CliError> =>
  probeDataDir(dataDir).pipe(
    Effect.repeat({ schedule: Schedule.spaced(Duration.millis(100)), until: (probe) => probe.found._tag !== "Live" }),
    Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => new CliError({ message: `the local host (pid ${pid}) did not stop within 30 s` }) }),
    Effect.asVoid
  )

/**
 * Starts `custom-agent host run` for `dataDir` in the background (its own session, so closing
 * the terminal leaves it running; its output in the data directory's host.log) and waits until
 * it answers. `hostArguments` are the agent's options for it (model, script, sandbox).
 */
export const startHost = (dataDir: string, hostArguments: ReadonlyArray<string>): Effect.Effect<LocalHost, CliError> =>
  Effect.gen(function* () {
    const probe = yield* probeDataDir(dataDir)
    const found = yield* Effect.either(hostFrom(dataDir)(probe))
    if (Either.isRight(found) && found.right !== undefined) return found.right
    if (Either.isLeft(found)) {
      // An older host with no turn running (asked to stop by hostFrom) is replaced now; one with turns, once they end.
      const older = probe.found._tag === "Live" ? probe.found.status : undefined
      if (older === undefined || !isOlderVersion(older.version) || older.working.length > 0) return yield* found.left
      yield* untilGone(dataDir, older.pid)
      // Another client may have started one meanwhile.
      const started = yield* runningHost(dataDir)
      if (started !== undefined) return started
    }
    yield* Effect.mapError(claimDataDir(dataDir), (refused) => new CliError({ message: refused.message, cause: refused }))
    const log = hostLogPath(dataDir)
    const entry = process.argv[1]
    if (entry === undefined) return yield* new CliError({ message: "cannot start the local host: this process's own script is unknown" })
    const child = yield* Effect.try({
      try: () => spawnDetached(process.execPath, [entry, "host", "run", "--data-dir", dataDir, ...hostArguments], log),
      catch: (error) => new CliError({ message: `cannot start the local host: ${String(error)}`, cause: error })
    })
    const started = probeDataDir(dataDir).pipe(
      Effect.flatMap(({ path, token, found }) => {
        if (found._tag === "Live") return Effect.succeed<LocalHost>({ path, token, status: found.status })
        if (child.exitCode() !== undefined) return Effect.fail(new CliError({ message: `the local host exited at start (${String(child.exitCode())}):\n${readBoundedTail(log)}` }))
        return Effect.fail(undefined)
      }),
      Effect.retry({ schedule: Schedule.spaced(Duration.millis(100)), while: (error) => error === undefined }),
      Effect.timeoutFail({ duration: START_TIMEOUT, onTimeout: () => new CliError({ message: `the local host did not answer within 30 s; its log:\n${readBoundedTail(log)}` }) })
    )
    const host = yield* Effect.mapError(started, (error) => error ?? new CliError({ message: "the local host did not start" }))
    if (host.status.version !== packageVersion()) return yield* versionProblem(dataDir, host.status, false)
    return host
  })
