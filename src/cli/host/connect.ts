import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { existsSync } from "node:fs"
import { packageVersion } from "../../app/package-root.js"
import { spawnDetached } from "../../layers/detached-process.js"
import { claimPrivateDir } from "../../layers/private-files.js"
import { readBoundedTail } from "./log-tail.js"
import { CliError } from "../errors.js"
import { keptToken } from "../kept-token.js"
import { hostLogPath, hostSocketPath, socketPathProblem } from "./host-files.js"
import { type HostProbe, probeHost } from "./probe.js"
import type { HostStatus } from "../../rpc/host-control.js"

/** A live host of this version, and how to reach it. */
export interface LocalHost {
  readonly path: string
  readonly token: string
  readonly status: HostStatus
}

/** How long a host started here may take to answer (a cold start builds the store and the sandbox check). */
const START_TIMEOUT = Duration.seconds(30)

/** A host of another version is not used: it may read a request differently. */
const versionProblem = (dataDir: string, status: HostStatus): CliError =>
  new CliError({
    message:
      `the local host of ${dataDir} runs custom-agent ${status.version}, this is ${packageVersion()}: ` +
      (status.working.length === 0
        ? "`custom-agent host stop` ends it (no turn runs there), and the next client starts one of this version"
        : `it runs ${status.working.length} turn(s); \`custom-agent host stop\` ends it once they finish (\`--now\` interrupts them)`)
  })

/** What is at `dataDir`'s host socket, with the token to ask it. */
export const probeDataDir = (dataDir: string): Effect.Effect<{ readonly path: string; readonly token: string; readonly found: HostProbe }, CliError> =>
  Effect.gen(function* () {
    const path = hostSocketPath(dataDir)
    const tooLong = socketPathProblem(path)
    if (tooLong !== undefined) return yield* new CliError({ message: tooLong })
    // No socket, no host: the token file is not read (nor made).
    if (!existsSync(path)) return { path, token: "", found: { _tag: "Missing" } satisfies HostProbe }
    const token = (yield* keptToken(dataDir, false)).value
    return { path, token, found: yield* probeHost(path, token) }
  })

/** The host of `dataDir` when one of this version answers; none when none runs. Another version, or a socket that refuses us, is an error saying what to do. */
export const runningHost = (dataDir: string): Effect.Effect<LocalHost | undefined, CliError> =>
  Effect.flatMap(probeDataDir(dataDir), ({ path, token, found }) => {
    switch (found._tag) {
      case "Missing":
      case "Stale":
        return Effect.succeed(undefined)
      case "Refused":
        return Effect.fail(new CliError({ message: `the local host's socket ${path} ${found.reason}` }))
      case "Live":
        return found.status.version === packageVersion() ? Effect.succeed({ path, token, status: found.status }) : Effect.fail(versionProblem(dataDir, found.status))
    }
  })

/**
 * Starts `custom-agent host run` for `dataDir` in the background (its own session, so closing
 * the terminal leaves it running; its output in the data directory's host.log) and waits until
 * it answers. `hostArguments` are the agent's options for it (model, script, sandbox).
 */
export const startHost = (dataDir: string, hostArguments: ReadonlyArray<string>): Effect.Effect<LocalHost, CliError> =>
  Effect.gen(function* () {
    const existing = yield* runningHost(dataDir)
    if (existing !== undefined) return existing
    yield* Effect.try({
      try: () => claimPrivateDir(dataDir),
      catch: (error) => new CliError({ message: `cannot create the data directory ${dataDir}: ${String(error)}`, cause: error })
    })
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
    if (host.status.version !== packageVersion()) return yield* versionProblem(dataDir, host.status)
    return host
  })
