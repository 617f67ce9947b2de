import { HttpServer } from "@effect/platform"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { hostLayer } from "../../app/host.js"
import { webRoot } from "../../app/package-root.js"
import { listeningLayer } from "../../rpc/listen.js"
import { type AgentArgs, agentSetup, noteEchoDefault } from "../agent-setup.js"
import { CliError } from "../errors.js"
import { listenFailure, parseListenHost } from "../listen-host.js"
import { stderr, stdout } from "../io.js"
import { warnPasswordInUrl } from "../secret-arguments.js"
import { configuredToken, TOKEN_ENV } from "../token-source.js"
import { followKeptToken, type KeptToken, keptToken } from "../kept-token.js"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { claimHostSocket, socketHostLayer } from "../host/socket-host.js"

export interface ServeArgs extends AgentArgs {
  readonly port: number
  readonly host: string
  /** `--token-file`; else `$CUSTOM_AGENT_TOKEN`; else the token kept in the data directory (made on first use). */
  readonly tokenFile: Option.Option<string>
  /** `--rotate-token`: a new kept token replaces the old one. */
  readonly rotateToken: boolean
  /** More names the Host header may give (`--allowed-host`). */
  readonly allowedHost: ReadonlyArray<string>
  /** Seconds an unused session stays in memory. */
  readonly sessionIdle: number
  /** The cluster's database: this process is one of its runners. */
  readonly cluster: Option.Option<string>
  readonly runnerAddress: Option.Option<string>
  readonly failoverAfter: number
}

/** `HOST:PORT` (an IPv6 host in brackets). */
const parseAddress = (address: string) => {
  const match = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(address)
  const port = Number(match?.[2])
  return match?.[1] !== undefined && Number.isInteger(port) && port > 0 && port < 65536
    ? Option.some({ host: match[1].replace(/^\[|\]$/g, ""), port })
    : Option.none()
}

/** The host a `serve` runs: this process's own, or one runner's of a cluster. */
const hostFor = (args: ServeArgs) =>
  Effect.gen(function* () {
    const { config, choice } = yield* agentSetup(args)
    yield* noteEchoDefault(choice)
    const setup = { ...config, engine: { sessionIdleMs: args.sessionIdle * 1000 } }
    if (Option.isNone(args.cluster)) return hostLayer(setup)
    if (Option.isNone(args.runnerAddress)) {
      return yield* new CliError({ message: "--cluster needs --runner-address HOST:PORT, where the other runners reach this one" })
    }
    const address = parseAddress(args.runnerAddress.value)
    if (Option.isNone(address)) return yield* new CliError({ message: `--runner-address ${args.runnerAddress.value} is not HOST:PORT` })
    const { clusterHostLayer } = yield* Effect.promise(() => import("../../app/cluster.js"))
    return clusterHostLayer({
      ...setup,
      sessionIdleMs: args.sessionIdle * 1000,
      runner: { url: args.cluster.value, ...address.value, failoverAfter: Duration.seconds(args.failoverAfter) }
    })
  })

/** A token anyone on the network may try: shorter than this is refused off loopback. */
const MIN_TOKEN_LENGTH = 16

/** The server itself, loaded only by `serve`: the HTTP stack stays out of every other command's start-up. */
export const serve = (args: ServeArgs) =>
    Effect.gen(function* () {
      const listen = yield* Either.mapLeft(parseListenHost(args.host), (message) => new CliError({ message, exitCode: 2 }))
      const configured = yield* configuredToken(args.tokenFile)
      if (args.rotateToken && Option.isSome(configured)) {
        return yield* new CliError({
          message: `--rotate-token replaces the token serve keeps in its data directory, but this server's token comes from ${configured.value.source}: change it there`,
          exitCode: 2
        })
      }
      // Every runner must accept the same token, so a cluster never makes one up.
      if (Option.isSome(args.cluster) && Option.isNone(configured)) {
        return yield* new CliError({ message: `--cluster needs a token every runner shares: set ${TOKEN_ENV} or pass --token-file PATH` })
      }
      if (!listen.loopback && Option.isNone(configured)) {
        return yield* new CliError({
          message: `refusing to listen on ${listen.url} without a configured token: set ${TOKEN_ENV} or pass --token-file PATH`
        })
      }
      if (!listen.loopback && Option.isSome(configured) && configured.value.value.length < MIN_TOKEN_LENGTH) {
        const { source, value } = configured.value
        return yield* new CliError({
          message: `${source} is too short: serving on ${listen.url} (not loopback) takes a token of at least ${MIN_TOKEN_LENGTH} characters (this one has ${value.length}), e.g. \`openssl rand -base64 24\``,
          exitCode: 2
        })
      }
      if (Option.isSome(args.cluster)) yield* warnPasswordInUrl("--cluster", args.cluster.value)
      const host = yield* hostFor(args)
      // Only where a token was made up before (loopback, no cluster): one kept across restarts, so open pages keep working.
      const { bearer, kept } = yield* Option.match(configured, {
        onSome: (token) => Effect.succeed({ bearer: token.value, kept: Option.none<KeptToken>() }),
        onNone: () =>
          Effect.map(keptToken(resolveDataDir(Option.getOrUndefined(args.dataDir)), args.rotateToken), (token) => ({
            bearer: token.value,
            kept: Option.some(token)
          }))
      })
      const announce = Layer.effectDiscard(
        HttpServer.addressWith((address) => {
          const port = address._tag === "TcpAddress" ? address.port : 0
          const base = `http://${listen.url}:${port}`
          return stdout(
            `custom-agent is serving on ${base}\n` +
              `open ${base}/#token=${bearer}\n` +
              Option.match(kept, {
                onNone: () => "",
                onSome: ({ file, fresh }) => `token ${bearer}\n${fresh ? "a new token, kept" : "the token kept"} in ${file} (--rotate-token makes a new one)\n`
              })
          )
        })
      )
      // This data directory's local host, unless one runs: the terminal's clients then join this
      // server's sessions, and the page shows their turns live (none for a cluster's runner, nor
      // on a configured token).
      const dataDir = resolveDataDir(Option.getOrUndefined(args.dataDir))
      // Only on the kept token: a configured one is not in the data directory for clients to read.
      const claim = Option.isNone(args.cluster) && Option.isSome(kept)
        ? yield* claimHostSocket(dataDir).pipe(
            Effect.catchAll((error) => Effect.as(stderr(`no local host socket: ${error.message}; clients in other terminals run in their own processes\n`), undefined))
          )
        : undefined
      if (claim?._tag === "Taken") {
        yield* stderr(
          `the local host (pid ${claim.status.pid}) holds ${dataDir}'s socket: turns its clients run show on this page once they are written, not as they stream (\`custom-agent host stop\` and restart serve to be the host)\n`
        )
      }
      const stopped = yield* Deferred.make<void>()
      const socket = claim?._tag === "Free" ? socketHostLayer(claim, { idleExit: 0, done: stopped, sandbox: { mode: args.sandbox ?? "auto", network: args.sandboxNetwork ?? false }, configDir: resolveConfigDir() }) : Layer.empty
      // The host first, then the port, then the announcement: nothing is accepted before it can be answered.
      const app = Layer.merge(
        announce.pipe(
          Layer.provide(
            listeningLayer({ token: Option.match(kept, { onNone: () => bearer, onSome: followKeptToken }), webRoot: webRoot(), boundHost: listen.bind, allowedHosts: args.allowedHost, port: args.port, host: listen.bind })
          )
        ),
        socket
      ).pipe(Layer.provide(host))
      // `host stop` on the socket ends the server too: it is this data directory's host.
      return yield* Effect.raceFirst(Layer.launch(app), Deferred.await(stopped)).pipe(
        Effect.catchTag("ServeError", (error) => new CliError({ message: listenFailure(listen, args.port, error.cause) })),
        // The host lock, when the socket never got to listen (its layer releases it once it does).
        Effect.ensuring(claim?._tag === "Free" ? claim.lock.release : Effect.void)
      )
    })
