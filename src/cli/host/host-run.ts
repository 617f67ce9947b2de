import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { hostLayer } from "../../app/host.js"
import { resolveDataDir } from "../../app/locations.js"
import { packageVersion } from "../../app/package-root.js"
import { type AgentArgs, agentSetup, noteEchoDefault } from "../agent-setup.js"
import { CliError } from "../errors.js"
import { stdout } from "../io.js"
import { claimHostSocket, socketHostLayer } from "./socket-host.js"

export interface HostRunArgs extends AgentArgs {
  /** Seconds with no client connected and no turn running after which the host exits (0: never). */
  readonly idleExit: number
  readonly sessionIdle: number
}

/**
 * The data directory's local host, in the foreground: the agent's host on a Unix socket in the
 * data directory, for every client on this machine (the interactive session, `run`, `attach`).
 * It refuses to start beside a live host of the same directory, replaces a stale socket, and
 * exits after `idleExit` seconds with no client and no turn, or when asked (`host stop`).
 */
export const runHost = (args: HostRunArgs) =>
  Effect.gen(function* () {
    const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
    const claim = yield* claimHostSocket(dataDir)
    if (claim._tag === "Taken") {
      return yield* new CliError({ message: `a host already runs for ${dataDir} (pid ${claim.status.pid}, version ${claim.status.version})` })
    }
    // The host lock is held until the socket listens (socketHostLayer releases it), or this start fails.
    yield* Effect.gen(function* () {
      const { config, choice } = yield* agentSetup(args)
      yield* noteEchoDefault(choice)
      const host = hostLayer({ ...config, engine: { sessionIdleMs: args.sessionIdle * 1000 } })
      const done = yield* Deferred.make<void>()
      yield* Effect.scoped(
        Effect.gen(function* () {
          yield* Layer.build(socketHostLayer(claim, { idleExit: args.idleExit, done, sandbox: { mode: args.sandbox ?? "auto", network: args.sandboxNetwork ?? false }, configDir: config.configDir }).pipe(Layer.provide(host)))
          yield* stdout(`custom-agent host ${packageVersion()} listening on ${claim.path} (pid ${process.pid})\n`)
          yield* Deferred.await(done)
        })
      )
    }).pipe(Effect.ensuring(claim.lock.release))
  })
