import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { chmodSync, rmSync } from "node:fs"
import { packageVersion } from "../../app/package-root.js"
import { AgentHost } from "../../host/AgentHost.js"
import type { HostStatus } from "../../rpc/host-control.js"
import { HostProcess, type StopWhen } from "../../rpc/host-control.js"
import { socketServerLayer } from "../../rpc/socket-server.js"
import { CliError } from "../errors.js"
import { followKeptToken, type KeptToken, keptToken } from "../kept-token.js"
import { hostSocketPath, socketPathProblem } from "./host-files.js"
import { probeHost } from "./probe.js"

/** How often the host looks whether it has been idle long enough. */
const IDLE_CHECK = Duration.seconds(1)

/** The data directory's host socket for this process to serve, or the live host that holds it. */
export type SocketClaim =
  | { readonly _tag: "Free"; readonly path: string; readonly token: KeptToken }
  | { readonly _tag: "Taken"; readonly status: HostStatus }

/** Whether the data directory's host socket is free for this process; a socket nothing answers on is removed. */
export const claimHostSocket = (dataDir: string): Effect.Effect<SocketClaim, CliError> =>
  Effect.gen(function* () {
    const path = hostSocketPath(dataDir)
    const tooLong = socketPathProblem(path)
    if (tooLong !== undefined) return yield* new CliError({ message: tooLong })
    const token = yield* keptToken(dataDir, false)
    const found = yield* probeHost(path, token.value)
    if (found._tag === "Live") {
      const taken: SocketClaim = { _tag: "Taken", status: found.status }
      return taken
    }
    if (found._tag === "Refused") return yield* new CliError({ message: `${path} ${found.reason}: not replaced` })
    // Nothing answers there: a socket a dead host left (or none). Bind cannot reuse the path.
    if (found._tag === "Stale") rmSync(path, { force: true })
    const free: SocketClaim = { _tag: "Free", path, token }
    return free
  })

export interface SocketHostOptions {
  /** Seconds with no client connected and no turn running after which the host is done (0: never). */
  readonly idleExit: number
  /** The sandbox this host's agent runs commands in, as it was asked for. */
  readonly sandbox: { readonly mode: "auto" | "off" | "on"; readonly network: boolean }
  /** Completed when the host should go: asked to stop, or idle for long enough. */
  readonly done: Deferred.Deferred<void>
}

/**
 * The host's API and its control on the claimed socket, for the AgentHost provided to it (a
 * `host run`'s or a `serve`'s). The socket is made 0600 once it listens and removed when the
 * layer goes.
 */
export const socketHostLayer = (claim: { readonly path: string; readonly token: KeptToken }, options: SocketHostOptions) =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const startedAt = new Date().toISOString()
      // Counted by the server's connection events (Node callbacks), read by status and the idle check.
      const connections = { open: 0 }
      const stopWhenIdle = yield* Ref.make(false)

      const processLayer = Layer.effect(
        HostProcess,
        Effect.map(AgentHost, (agent) =>
          HostProcess.of({
            status: Effect.map(agent.working, (working) => ({
              version: packageVersion(),
              pid: process.pid,
              startedAt,
              clients: connections.open,
              working: [...working],
              idleExitSeconds: options.idleExit,
              sandbox: options.sandbox
            })),
            stop: (when: StopWhen) => (when === "now" ? Deferred.succeed(options.done, undefined) : Ref.set(stopWhenIdle, true))
          })
        )
      )

      /** Done when asked to stop once idle and no turn runs, or unused for `idleExit` seconds. */
      const watcher = Layer.scopedDiscard(
        Effect.gen(function* () {
          const agent = yield* AgentHost
          let idleSince: number | undefined
          const check = Effect.gen(function* () {
            const working = (yield* agent.working).size
            if ((yield* Ref.get(stopWhenIdle)) && working === 0) return true
            if (options.idleExit === 0 || working > 0 || connections.open > 0) {
              idleSince = undefined
              return false
            }
            idleSince ??= Date.now()
            return Date.now() - idleSince >= options.idleExit * 1000
          })
          yield* Effect.forkScoped(
            check.pipe(Effect.repeat({ schedule: Schedule.spaced(IDLE_CHECK), until: (done) => done }), Effect.zipRight(Deferred.succeed(options.done, undefined)))
          )
        })
      )

      // The data directory (0700) already keeps others out; the socket says so itself too.
      const restrict = Layer.effectDiscard(
        Effect.try({ try: () => chmodSync(claim.path, 0o600), catch: (error) => new CliError({ message: `cannot restrict ${claim.path}: ${String(error)}`, cause: error }) })
      )
      // Acquired first, so released last: after the server has closed.
      const removal = Layer.scopedDiscard(Effect.addFinalizer(() => Effect.sync(() => rmSync(claim.path, { force: true }))))

      const server = socketServerLayer({
        path: claim.path,
        token: followKeptToken(claim.token),
        onConnections: (open) => {
          connections.open = open
        }
      })
      return Layer.mergeAll(restrict, watcher).pipe(Layer.provideMerge(server), Layer.provide(processLayer), Layer.provide(removal))
    })
  )
