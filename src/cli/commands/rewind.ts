import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { isAbsolute, relative, resolve, sep } from "node:path"
import { RewindDrift, type RewindResult, type RewindTarget, type RewindWhat } from "../../domain/rewind.js"
import { askLine, isYes } from "../ask-line.js"
import { CliError, usageError } from "../errors.js"
import { stderr, stdout } from "../io.js"
import { sanitizeInline } from "../terminal-text.js"
import { localHostLayer } from "../local-host.js"
import * as shared from "../options.js"
import { describeTransport, remoteLayer } from "../remote.js"
import { localRewindClient, type RewindClient } from "../rewind-client.js"
import { missing, sessionId, where, type Where } from "../session-args.js"
import { interactive } from "../turn-output.js"

/** Runs `use` with rewind, redo and fork on the local store, or on the server named by --server. */
const withClient = <A>(args: Where & { readonly sessionId: string }, use: (client: RewindClient) => Effect.Effect<A, unknown>) => {
  const known = Effect.catchIf(
    (error: unknown) => typeof error === "object" && error !== null && "_tag" in error && error._tag === "SessionNotFound",
    () => Effect.fail(missing(args.sessionId))
  )
  if (Option.isSome(args.server)) {
    const url = args.server.value
    return Effect.flatMap(Effect.promise(() => import("./rewind-remote.js")), (remote) => Effect.flatMap(remote.remoteRewindClient, use)).pipe(
      known,
      describeTransport(url),
      Effect.provide(remoteLayer(url, args.tokenFile))
    )
  }
  return Effect.flatMap(localRewindClient, use).pipe(known, Effect.provide(localHostLayer(args)))
}

const force = Options.boolean("force").pipe(
  Options.withDescription("Overwrite files changed since the session's last checkpoint by something other than the agent, without asking")
)

const driftRefused = (drift: RewindDrift) =>
  new CliError({ message: `${drift.message}; nothing was changed (--force overwrites them)` })

/**
 * Runs the restore; when files changed outside the agent stop it, a person at a terminal is
 * shown them and asked (yes runs it again with force), and without a terminal it is refused.
 */
const withDriftQuestion = (forced: boolean, attempt: (force: boolean) => Effect.Effect<RewindResult, unknown>) =>
  Effect.catchIf(
    attempt(forced),
    (error): error is RewindDrift => error instanceof RewindDrift,
    (drift) =>
      Effect.gen(function* () {
        if (!interactive()) return yield* driftRefused(drift)
        yield* stderr(`These files changed since the session's last checkpoint by something other than the agent:\n${drift.paths.map((p) => `  ${sanitizeInline(p)}\n`).join("")}`)
        const answer = yield* askLine(process.stdin, process.stderr, "overwrite them? [y/N] ")
        if (!isYes(answer)) return yield* new CliError({ message: "nothing was changed" })
        return yield* attempt(true)
      })
  )

/** What a rewind or redo did, for a person. */
const describe = (result: RewindResult, redo: boolean): string => {
  const lines: Array<string> = []
  const prefix = redo ? "redo: " : ""
  if (result.checkpointSequence !== undefined) {
    const { checkpointSequence: at, drift } = result
    // A file changed outside the agent was put back too: one account, never "match" and "overwrote" together.
    const paths = [...new Set([...result.restoredPaths, ...drift])]
    const outside = new Set(drift)
    lines.push(
      paths.length === 0
        ? `${prefix}the files already match checkpoint #${at}`
        : `${prefix}restored ${paths.length} file(s) from checkpoint #${at}:\n${paths
            .map((p) => `  ${p}${outside.has(p) ? " (overwrote a change made outside the agent)" : ""}`)
            .join("\n")}`
    )
  }
  if (result.conversationTo !== undefined) lines.push(`${prefix}conversation rewound to event #${result.conversationTo}: the next turn follows on from it`)
  return `${lines.join("\n")}\n`
}

/** `--file` as the engine takes it: relative to the session's workspace. */
const workspacePath = (workspace: string, file: string) => {
  const inside = relative(workspace, isAbsolute(file) ? file : resolve(process.cwd(), file))
  return inside.split(sep).join("/")
}

const turn = shared.positiveWhole("turn").pipe(Options.withDescription("Rewind to before this turn (1 is the session's first)"), Options.optional)
const at = shared.positiveWhole("at").pipe(
  Options.withPseudoName("SEQ"),
  Options.withDescription("Rewind to this event (its sequence, as sessions show and export give it)"),
  Options.optional
)
const filesOnly = Options.boolean("files").pipe(Options.withDescription("Restore the files only, not the conversation"))
const conversationOnly = Options.boolean("conversation").pipe(Options.withDescription("Rewind the conversation only, not the files"))
const file = Options.text("file").pipe(
  Options.withPseudoName("PATH"),
  Options.withDescription("Restore only this file (relative to the current directory, or absolute)"),
  Options.optional
)

interface RewindArgs {
  readonly turn: Option.Option<number>
  readonly at: Option.Option<number>
  readonly files: boolean
  readonly conversation: boolean
  readonly file: Option.Option<string>
}

/** The target and the parts, or a usage error naming what does not go together. */
const requestOf = (args: RewindArgs) =>
  Effect.gen(function* () {
    const toTurn = Option.map(args.turn, (turn): RewindTarget => ({ _tag: "Turn", turn }))
    const toSequence = Option.map(args.at, (sequence): RewindTarget => ({ _tag: "Sequence", sequence }))
    const to = Option.orElse(toTurn, () => toSequence)
    if (Option.isNone(to) || (Option.isSome(toTurn) && Option.isSome(toSequence))) return yield* Effect.fail(usageError("give one of --turn N or --at SEQ"))
    if (args.files && args.conversation) return yield* Effect.fail(usageError("--files and --conversation exclude each other (leave both out to rewind both)"))
    if (Option.isSome(args.file) && args.conversation) return yield* Effect.fail(usageError("--file restores a file: it does not go with --conversation"))
    const what: RewindWhat = args.files || Option.isSome(args.file) ? "files" : args.conversation ? "conversation" : "both"
    return { to: to.value, what }
  })

const rewindCommand = Command.make(
  "rewind",
  { sessionId, turn, at, files: filesOnly, conversation: conversationOnly, file, force, ...where },
  (args) =>
    Effect.flatMap(requestOf(args), ({ to, what }) =>
      withClient(args, (client) =>
        Effect.gen(function* () {
          const path = Option.isSome(args.file) ? workspacePath(yield* client.workspaceOf(args.sessionId), args.file.value) : undefined
          const result = yield* withDriftQuestion(args.force, (forced) =>
            client.rewind(args.sessionId, { to, what, force: forced, by: "cli", ...(path === undefined ? {} : { path }) })
          )
          yield* stdout(describe(result, false))
        })
      )
    )
).pipe(Command.withDescription("Restore a session's files, conversation or both to before a turn or to an event (checking for changes made outside the agent first)"))

const redoCommand = Command.make("redo", { sessionId, force, ...where }, (args) =>
  withClient(args, (client) =>
    Effect.gen(function* () {
      const result = yield* withDriftQuestion(args.force, (forced) => client.redo(args.sessionId, { force: forced, by: "cli" }))
      yield* stdout(describe(result, true))
    })
  )
).pipe(Command.withDescription("Undo the session's last rewind: its files and conversation as they were before it"))

const forkAt = shared.positiveWhole("at").pipe(
  Options.withPseudoName("SEQ"),
  Options.withDescription("Fork at this event (default: the session's last)"),
  Options.optional
)

const forkCommand = Command.make("fork", { sessionId, at: forkAt, ...where }, (args) =>
  withClient(args, (client) =>
    Effect.gen(function* () {
      const fork = yield* client.fork(args.sessionId, Option.getOrUndefined(args.at))
      yield* stdout(`${fork.sessionId}\n`)
      const forked = fork.forked
      if (forked !== undefined && forked.copiedThrough < forked.atSequence) {
        yield* stderr(`custom-agent: event #${forked.atSequence} is inside a turn: the fork's history ends at #${forked.copiedThrough}, before that turn\n`)
      }
    })
  )
).pipe(Command.withDescription("Start a new session with a session's history up to an event; prints the new session's id"))

export const rewindCommands = [rewindCommand, redoCommand, forkCommand] as const
