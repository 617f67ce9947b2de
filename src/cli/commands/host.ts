import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { resolveDataDir } from "../../app/locations.js"
import { relativeTime } from "../../domain/relative-time.js"
import { CliError } from "../errors.js"
import { stdout } from "../io.js"
import * as shared from "../options.js"
import { term } from "../terminal-text.js"

const idleExit = Options.integer("idle-exit").pipe(
  Options.withDescription("Seconds with no client connected and no turn running after which the host exits; 0 keeps it running (default: 600)"),
  Options.filterMap((seconds) => (seconds >= 0 ? Option.some(seconds) : Option.none()), "--idle-exit must be 0 or more seconds"),
  Options.withDefault(600)
)

const now = Options.boolean("now").pipe(Options.withDescription("Interrupt running turns (closed as interrupted in their logs) instead of waiting for them to end"))

/** The options a host is started with, passed on to the `host run` a client starts. */
const hostOptions = { ...shared.agent, idleExit, sessionIdle: shared.sessionIdle }

const dataDirOf = (args: { readonly dataDir: Option.Option<string> }) => resolveDataDir(Option.getOrUndefined(args.dataDir))

/** The agent's options as `host run` takes them again, for a host started in the background. */
export const hostArguments = (args: {
  readonly model: Option.Option<string>
  readonly script: Option.Option<string>
  readonly maxOutputTokens: Option.Option<number>
  readonly thinkingBudget: Option.Option<number>
  readonly store: string
  readonly sandbox?: string
  readonly sandboxNetwork?: boolean
  readonly idleExit?: number
  readonly sessionIdle?: number
}): ReadonlyArray<string> => [
  ...Option.match(args.model, { onNone: () => [], onSome: (model) => ["--model", model] }),
  ...Option.match(args.script, { onNone: () => [], onSome: (script) => ["--script", script] }),
  ...Option.match(args.maxOutputTokens, { onNone: () => [], onSome: (n) => ["--max-output-tokens", String(n)] }),
  ...Option.match(args.thinkingBudget, { onNone: () => [], onSome: (n) => ["--thinking-budget", String(n)] }),
  "--store",
  args.store,
  ...(args.sandbox === undefined ? [] : ["--sandbox", args.sandbox]),
  ...(args.sandboxNetwork === true ? ["--sandbox-network"] : []),
  ...(args.idleExit === undefined ? [] : ["--idle-exit", String(args.idleExit)]),
  ...(args.sessionIdle === undefined ? [] : ["--session-idle", String(args.sessionIdle)])
]

const runSubcommand = Command.make("run", hostOptions, (args) =>
  Effect.flatMap(Effect.promise(() => import("../host/host-run.js")), (host) => host.runHost(args))
).pipe(Command.withDescription("Run the data directory's local host in the foreground (what `host start` starts in the background)"))

const startSubcommand = Command.make("start", hostOptions, (args) =>
  Effect.gen(function* () {
    const { startHost } = yield* Effect.promise(() => import("../host/connect.js"))
    const dataDir = dataDirOf(args)
    const host = yield* startHost(dataDir, hostArguments(args))
    yield* stdout(term`local host ${host.status.version} running for ${dataDir} (pid ${host.status.pid}, socket ${host.path})\n`)
  })
).pipe(Command.withDescription("Start the data directory's local host in the background, unless one runs; it exits after --idle-exit seconds unused"))

const statusSubcommand = Command.make("status", { dataDir: shared.dataDir }, (args) =>
  Effect.gen(function* () {
    const { probeDataDir } = yield* Effect.promise(() => import("../host/connect.js"))
    const dataDir = dataDirOf(args)
    const { path, found } = yield* probeDataDir(dataDir)
    switch (found._tag) {
      case "Missing":
        return yield* stdout(term`no local host runs for ${dataDir}\n`)
      case "Stale":
        return yield* stdout(term`no local host runs for ${dataDir} (a socket a stopped host left is there; the next start replaces it)\n`)
      case "Refused":
        return yield* new CliError({ message: `the local host's socket ${path} ${found.reason}` })
      case "Live": {
        const { status } = found
        const working = status.working.length === 0 ? "no turn running" : `turns running in ${status.working.join(", ")}`
        const idle = status.idleExitSeconds === 0 ? "runs until stopped" : `exits after ${status.idleExitSeconds} s unused`
        return yield* stdout(
          term`local host ${status.version} for ${dataDir}\n  pid ${status.pid}, started ${relativeTime(status.startedAt, Date.now())}\n  socket ${path}\n  ${status.clients} client(s) connected, ${working}\n  ${idle}\n`
        )
      }
    }
  })
).pipe(Command.withDescription("Show whether the data directory's local host runs: its version, clients and running turns"))

const stopSubcommand = Command.make("stop", { dataDir: shared.dataDir, now }, (args) =>
  Effect.gen(function* () {
    const { probeDataDir, untilGone } = yield* Effect.promise(() => import("../host/connect.js"))
    const { HostControlClient, hostControlLayer } = yield* Effect.promise(() => import("../../rpc/socket-client.js"))
    const dataDir = dataDirOf(args)
    const { path, token, found } = yield* probeDataDir(dataDir)
    if (found._tag !== "Live") {
      if (found._tag === "Refused") return yield* new CliError({ message: `the local host's socket ${path} ${found.reason}` })
      return yield* stdout(term`no local host runs for ${dataDir}\n`)
    }
    yield* Effect.flatMap(HostControlClient, (control) => control.StopHost({ when: args.now ? "now" : "idle" })).pipe(
      Effect.scoped,
      Effect.provide(hostControlLayer({ path, token })),
      Effect.mapError((error) => new CliError({ message: `cannot ask the local host to stop: ${String(error)}`, cause: error }))
    )
    const waiting = found.status.working.length
    if (!args.now && waiting > 0) {
      return yield* stdout(term`the local host (pid ${found.status.pid}) stops once its ${waiting} running turn(s) end\n`)
    }
    // Gone once nothing answers on the socket.
    yield* untilGone(dataDir, found.status.pid)
    yield* stdout(term`local host stopped (pid ${found.status.pid})\n`)
  })
).pipe(Command.withDescription("Stop the data directory's local host: once its running turns end, or at once with --now"))

export const hostCommand = Command.make("host").pipe(
  Command.withDescription("The data directory's local host: one process every client on this machine reaches over a Unix socket, which keeps turns running after their terminal closes"),
  Command.withSubcommands([startSubcommand, statusSubcommand, stopSubcommand, runSubcommand])
)
