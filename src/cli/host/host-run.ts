import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import { chmodSync, rmSync } from "node:fs"
import { hostLayer } from "../../app/host.js"
import { resolveDataDir } from "../../app/locations.js"
import { packageVersion } from "../../app/package-root.js"
import { AgentHost } from "../../host/AgentHost.js"
import { HostProcess, type StopWhen } from "../../rpc/host-control.js"
import { socketServerLayer } from "../../rpc/socket-server.js"
import { type AgentArgs, agentSetup, noteEchoDefault } from "../agent-setup.js"
import { CliError } from "../errors.js"
import { stdout } from "../io.js"
import { followKeptToken, keptToken } from "../kept-token.js"
import { hostSocketPath, socketPathProblem } from "./host-files.js"
import { probeHost } from "./probe.js"

export interface HostRunArgs extends AgentArgs {
  /** Seconds with no client connected and no turn running after which the host exits (0: never). */
  readonly idleExit: number
  readonly sessionIdle: number
}

/** How often the host looks whether it has been idle long enough. */
const IDLE_CHECK = Duration.seconds(1)

/**
 * The data directory's local host, in the foreground: the agent's host on a Unix socket in the
 * data directory, for every client on this machine (the interactive session, `run`, `attach`).
 * It refuses to start beside a live host of the same directory, replaces a stale socket, and
 * exits after `idleExit` seconds with no client and no turn, or when asked (`host stop`).
 */
export const runHost = (args: HostRunArgs) =>
  Effect.gen(function* () {
    const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
    const path = hostSocketPath(dataDir)
    const tooLong = socketPathProblem(path)
    if (tooLong !== undefined) return yield* new CliError({ message: tooLong })
    const token = yield* keptToken(dataDir, false)
    const found = yield* probeHost(path, token.value)
    if (found._tag === "Live") {
      return yield* new CliError({ message: `a host already runs for ${dataDir} (pid ${found.status.pid}, version ${found.status.version})` })
    }
    // Nothing answers there: a socket a dead host left (or none). Bind cannot reuse the path.
    if (found._tag === "Stale") yield* Effect.sync(() => rmSync(path, { force: true }))

    const { config, choice } = yield* agentSetup(args)
    yield* noteEchoDefault(choice)
    const host = hostLayer({ ...config, engine: { sessionIdleMs: args.sessionIdle * 1000 } })

    const startedAt = new Date().toISOString()
    // Counted by the server's connection events (Node callbacks), read by status and the idle check.
    const connections = { open: 0 }
    const stopNow = yield* Deferred.make<void>()
    const stopWhenIdle = yield* Ref.make(false)

    const processLayer = Layer.effect(
      HostProcess,
      Effect.map(AgentHost, (agent) =>
        HostProcess.of({
          status: Effect.all({ clients: Effect.sync(() => connections.open), working: agent.working }).pipe(
            Effect.map(({ clients, working }) => ({
              version: packageVersion(),
              pid: process.pid,
              startedAt,
              clients,
              working: [...working],
              idleExitSeconds: args.idleExit
            }))
          ),
          stop: (when: StopWhen) => (when === "now" ? Deferred.succeed(stopNow, undefined) : Ref.set(stopWhenIdle, true))
        })
      )
    )

    const server = socketServerLayer({
      path,
      token: followKeptToken(token),
      onConnections: (open) => {
        connections.open = open
      }
    })

    /** Resolves when the host should go: asked to, or idle for long enough. */
    const untilDone = Effect.gen(function* () {
      const agent = yield* AgentHost
      let idleSince: number | undefined
      const check = Effect.gen(function* () {
        const working = (yield* agent.working).size
        const clients = connections.open
        if ((yield* Ref.get(stopWhenIdle)) && working === 0) return true
        if (args.idleExit === 0 || working > 0 || clients > 0) {
          idleSince = undefined
          return false
        }
        idleSince ??= Date.now()
        return Date.now() - idleSince >= args.idleExit * 1000
      })
      const idle = check.pipe(Effect.repeat({ schedule: Schedule.spaced(IDLE_CHECK), until: (done) => done }))
      yield* Effect.raceFirst(idle, Deferred.await(stopNow))
    })

    const announce = stdout(`custom-agent host ${packageVersion()} listening on ${path} (pid ${process.pid})\n`)
    yield* Effect.scoped(
      Effect.gen(function* () {
        const built = yield* Layer.build(server.pipe(Layer.provideMerge(processLayer), Layer.provideMerge(host)))
        // The data directory (0700) already keeps others out; the socket says so itself too.
        yield* Effect.try({ try: () => chmodSync(path, 0o600), catch: (error) => new CliError({ message: `cannot restrict ${path}: ${String(error)}` }) })
        yield* announce
        yield* untilDone.pipe(Effect.provide(built))
      })
    ).pipe(Effect.ensuring(Effect.sync(() => rmSync(path, { force: true }))))
  })
