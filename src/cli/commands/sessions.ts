import { Args, Command, HelpDoc, Options } from "@effect/cli"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { packageVersion } from "../../app/package-root.js"
import { storeLayer } from "../../app/store.js"
import type { AgentEvent } from "../../domain/events.js"
import type { StartedChild } from "../../domain/subagent-link.js"
import { type Rewind, rewoundSpans } from "../../domain/rewound.js"
import { addSpend, formatCost, noSpend } from "../../domain/spend.js"
import { AgentHost, type ImportedSession } from "../../host/AgentHost.js"
import { EventStore } from "../../services/EventStore.js"
import { Ids } from "../../services/Ids.js"
import { IdsLive } from "../../layers/ids.js"
import { renameSessions } from "../../domain/session-rename.js"
import { askLine, isYes } from "../ask-line.js"
import { CliError, USAGE_EXIT_CODE } from "../errors.js"
import { NotTheChild, ownChild, withSubagents } from "../export-tree.js"
import { DEFAULT_MAX_LINE_MIB, readSessionFile } from "../import-file.js"
import { stderr, stdout, useColor, writeSegments } from "../io.js"
import { localHostLayer } from "../local-host.js"
import { existing } from "../options.js"
import { describeTransport, remoteLayer } from "../remote.js"
import { emptyOverview, foldOverview, makeContextView } from "../context-view.js"
import { makeRenderer } from "../render.js"
import { markRewound } from "../rewound-marks.js"
import { missing, sessionId, where, type Where } from "../session-args.js"
import { jsonText } from "../terminal-text.js"
import { rewindCommands } from "./rewind.js"
import type { SessionListItem } from "../../domain/host.js"
import { SessionTitle, TITLE_MAX_LENGTH } from "../../domain/session-title.js"
import { listSessionItems } from "../../host/session-list.js"
import { type Hidden, listedItems, sessionListing } from "../session-list-view.js"

/** What reading sessions needs (`list`, `show`): locally, the store alone. */
export interface Reader {
  /** Newest activity first, with each session's status; archived ones too. */
  readonly list: Effect.Effect<ReadonlyArray<SessionListItem>, unknown>
  /** The stored events as they are, for reading (`show`). */
  readonly events: (sessionId: string) => Stream.Stream<AgentEvent, unknown>
}

/** Where a session's events come from: the local store and host, or a server's API. */
export interface Source extends Reader {
  /** The session's log as the server's ExportSession gives it: a turn a dead process left open is closed first. */
  readonly export: (sessionId: string) => Stream.Stream<AgentEvent, unknown>
  /** The host's import: the same check (`planImport`) and the same write as the server's ImportSession. */
  readonly importLog: (events: ReadonlyArray<AgentEvent>, unverified: boolean) => Effect.Effect<ImportedSession, unknown>
  /** `session.renamed`, the title already checked against SessionTitle. */
  readonly rename: (sessionId: string, title: string) => Effect.Effect<void, unknown>
  /** `session.archived`: archived, or brought back. */
  readonly archive: (sessionId: string, archived: boolean) => Effect.Effect<void, unknown>
  /** Deletes it with its subagent sessions; gives the ids deleted. */
  readonly remove: (sessionId: string) => Effect.Effect<ReadonlyArray<string>, unknown>
}


const localReader = Effect.map(
  EventStore,
  (store): Reader => ({
    // Nothing runs in this process: a session is running when its turn lease is live elsewhere.
    list: listSessionItems(store, Effect.succeed(new Set<string>()), Effect.succeed(new Map<string, number>())),
    events: (sessionId) =>
      Stream.unwrap(
        Effect.map(store.head(sessionId), (head): Stream.Stream<AgentEvent, unknown> =>
          Option.isNone(head) ? Stream.fail(missing(sessionId)) : store.replay(sessionId)
        )
      )
  })
)

const localSource = Effect.gen(function* () {
  const host = yield* AgentHost
  const source: Source = {
    ...(yield* localReader),
    export: (sessionId) => host.exportSession(sessionId).pipe(Stream.catchTag("SessionNotFound", () => Stream.fail(missing(sessionId)))),
    importLog: (events, unverified) => host.importSession(events, { unverified }),
    rename: (sessionId, title) => host.renameSession(sessionId, title, "cli").pipe(Effect.catchTag("SessionNotFound", () => Effect.fail(missing(sessionId)))),
    archive: (sessionId, archived) =>
      host.archiveSession(sessionId, archived, "cli").pipe(Effect.catchTag("SessionNotFound", () => Effect.fail(missing(sessionId)))),
    remove: (sessionId) => host.deleteSession(sessionId, "cli").pipe(Effect.catchTag("SessionNotFound", () => Effect.fail(missing(sessionId))))
  }
  return source
})

/** The server named by --server, through its API. */
const onServer = <A>(url: string, tokenFile: Where["tokenFile"], use: (source: Source) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(Effect.promise(() => import("./sessions-remote.js")), (remote) => Effect.flatMap(remote.remoteSource, use)).pipe(
    describeTransport(url),
    Effect.provide(remoteLayer(url, tokenFile))
  )

/** Reads sessions from the local store alone (nothing else is built or read), or from the server named by --server. */
const withReader = <A>(args: Where, use: (reader: Reader) => Effect.Effect<A, unknown>) =>
  Option.isSome(args.server)
    ? onServer(args.server.value, args.tokenFile, use)
    : Effect.flatMap(localReader, use).pipe(Effect.provide(storeLayer(args.store, resolveDataDir(Option.getOrUndefined(args.dataDir)))))

/** Runs a command against the local host (export and import go through it, as a server's do), or the server named by --server. */
const withSource = <A>(args: Where, use: (source: Source) => Effect.Effect<A, unknown>) =>
  Option.isSome(args.server) ? onServer(args.server.value, args.tokenFile, use) : Effect.flatMap(localSource, use).pipe(Effect.provide(localHostLayer(args)))

const allFlag = Options.boolean("all").pipe(Options.withDescription("Every workspace's sessions, and archived ones, each workspace under its path"))
const limit = Options.integer("limit").pipe(
  Options.withDescription("At most this many sessions, newest first (default: 20)"),
  Options.filterMap((n) => (n > 0 ? Option.some(n) : Option.none()), "--limit must be a positive number"),
  Options.withDefault(20)
)
const json = Options.boolean("json").pipe(Options.withDescription("The listing as JSON (each session's id, times, status, title, cwd, ...), after --all and --limit"))

/** Says what the listing left out and how to see it. */
const hiddenNote = (hidden: Hidden, limitNow: number): string => {
  const parts = [
    ...(hidden.beyondLimit > 0 ? [`${hidden.beyondLimit} older (--limit ${limitNow + hidden.beyondLimit})`] : []),
    ...(hidden.elsewhere > 0 ? [`${hidden.elsewhere} in other workspaces (--all)`] : []),
    ...(hidden.archived > 0 ? [`${hidden.archived} archived (--all)`] : [])
  ]
  return parts.length === 0 ? "" : `not shown: ${parts.join(", ")}\n`
}

const list = Command.make("list", { all: allFlag, limit, json, ...where }, (args) =>
  withReader(args, (source) =>
    Effect.gen(function* () {
      const sessions = yield* source.list
      const view = {
        all: args.all,
        limit: args.limit,
        workspace: process.cwd(),
        width: process.stdout.isTTY === true && process.stdout.columns > 0 ? process.stdout.columns : 80,
        now: Date.now(),
        home: process.env["HOME"]
      }
      if (args.json) return yield* stdout(jsonText(`${JSON.stringify(listedItems(sessions, view))}\n`))
      if (sessions.length === 0) return yield* stdout('no sessions yet: start one with custom-agent run "..."\n')
      const listing = sessionListing(sessions, view)
      if (listing.shown === 0) {
        yield* stdout("no sessions in this workspace\n")
      } else {
        yield* stdout(listing.text)
      }
      yield* stderr(hiddenNote(listing.hidden, args.limit))
    })
  )
).pipe(
  Command.withDescription(
    "List this workspace's sessions, newest first, with their status (running, interrupted, idle); a subagent's session under its parent's (└). --all for every workspace and archived ones"
  )
)

const title = Args.text({ name: "title" }).pipe(
  Args.mapEffect((text) =>
    Effect.mapError(Schema.decodeUnknown(SessionTitle)(text), (error) => HelpDoc.p(`<title>: ${ParseResult.TreeFormatter.formatErrorSync(error)}`))
  ),
  Args.withDescription(`The session's new title (at most ${TITLE_MAX_LENGTH} characters)`)
)

const rename = Command.make("rename", { sessionId, title, ...where }, (args) =>
  withSource(args, (source) => Effect.zipRight(source.rename(args.sessionId, args.title), stdout(`renamed ${args.sessionId}\n`)))
).pipe(Command.withDescription("Give a session a title (recorded as session.renamed by cli)"))

const undo = Options.boolean("undo").pipe(Options.withDescription("Bring an archived session back"))

const archive = Command.make("archive", { sessionId, undo, ...where }, (args) =>
  withSource(args, (source) =>
    Effect.zipRight(source.archive(args.sessionId, !args.undo), stdout(`${args.undo ? "brought back" : "archived"} ${args.sessionId}\n`))
  )
).pipe(Command.withDescription("Archive a session: hidden from lists but --all, kept whole (--undo brings it back)"))

const yes = Options.boolean("yes").pipe(Options.withAlias("y"), Options.withDescription("Do not ask first (needed when stdin is not a terminal)"))

/** A person at a terminal says yes; elsewhere only --yes does. */
const confirmDelete = (sessionId: string) =>
  Effect.gen(function* () {
    if (process.stdin.isTTY !== true) {
      return yield* Effect.fail(new CliError({ message: `deleting ${sessionId} cannot be undone: pass --yes to confirm`, exitCode: USAGE_EXIT_CODE }))
    }
    const answer = yield* askLine(process.stdin, process.stderr, `Delete session ${sessionId} and its subagent sessions for good? (archive hides one instead) [y/N] `)
    return isYes(answer)
  })

const remove = Command.make("delete", { sessionId, yes, ...where }, (args) =>
  Effect.gen(function* () {
    if (!args.yes && !(yield* confirmDelete(args.sessionId))) return yield* stderr("nothing deleted\n")
    const deleted = yield* withSource(args, (source) => source.remove(args.sessionId))
    const children = deleted.length - 1
    yield* stdout(`deleted ${args.sessionId}${children > 0 ? ` and ${children} subagent session${children === 1 ? "" : "s"}` : ""}\n`)
  })
).pipe(
  Command.withDescription(
    "Delete a session and its subagent sessions for good: their logs, and the memory candidates they proposed that wait for review (approved memories stay). Refused while a turn runs. Asks first unless --yes"
  )
)

const contextFlag = Options.boolean("context").pipe(
  Options.withDescription("Show what the model no longer sees: each compaction's range, tokens, summary and the events it replaced, then the task list")
)

const show = Command.make("show", { sessionId, context: contextFlag, ...where }, (args) =>
  withReader(args, (source) =>
    Effect.gen(function* () {
      const color = useColor(process.stdout)
      const renderer = makeRenderer({ color, live: false, sequences: true })
      if (args.context) {
        // A first read finds the compactions, so each is printed above the events it replaced.
        const overview = yield* source.events(args.sessionId).pipe(Stream.runFold(emptyOverview(), foldOverview))
        const view = makeContextView(overview, renderer.render, color)
        yield* source.events(args.sessionId).pipe(Stream.runForEach((event) => writeSegments(view.view(event))))
        return yield* writeSegments(view.end())
      }
      // A first read finds the rewinds, so the parts they left out are marked as they are printed.
      const { rewinds, last, spend } = yield* source.events(args.sessionId).pipe(
        Stream.runFold({ rewinds: new Array<Rewind>(), last: 0, spend: noSpend }, (found, event) => {
          if (event.type === "conversation.rewound") found.rewinds.push({ sequence: event.sequence, toSequence: event.payload.toSequence })
          found.last = event.sequence
          found.spend = addSpend(found.spend, event)
          return found
        })
      )
      const mark = markRewound(rewoundSpans(rewinds, last), color)
      // A subagent's tool calls show under its `↳ subagent` line, read from its own session's log.
      const childSteps = (childSessionId: string, started: StartedChild) =>
        source.events(childSessionId).pipe(
          ownChild(childSessionId, started),
          Stream.runForEach((event) => writeSegments(renderer.renderChild(event))),
          Effect.catchAll((error) =>
            stdout(
              error instanceof NotTheChild
                ? `  │ (session ${childSessionId} does not say this call started it: its steps are not shown)\n`
                : `  │ (session ${childSessionId} is not in this store: its steps are not shown)\n`
            )
          )
        )
      yield* source.events(args.sessionId).pipe(
        Stream.runForEach((event) =>
          Effect.zipRight(
            writeSegments(mark(event, renderer.render(event))),
            event.type === "subagent.started"
              ? childSteps(event.payload.childSessionId, { parentSessionId: args.sessionId, toolCallId: event.payload.toolCallId })
              : Effect.void
          )
        )
      )
      if (spend.unpriced < spend.requests) {
        yield* stdout(`session: ${spend.requests} model request(s), ${spend.tokens} tokens, cost ${formatCost(spend)}\n`)
      }
    })
  )
).pipe(Command.withDescription("Print a session as a readable timeline, each event's first line starting with its number (#SEQ, as --at takes it; parts a rewind left out are marked); --context shows its compactions"))

const otlp = Options.boolean("otlp").pipe(
  Options.withDescription(
    "Instead of JSONL, send the session's trace (built from its log) to the OpenTelemetry endpoint the OTEL_* variables configure"
  )
)

const subagentsFlag = Options.boolean("no-subagents").pipe(
  Options.withDescription("Only the session's own log, without its subagents' sessions"),
  Options.map((only) => !only)
)

const exportCommand = Command.make("export", { sessionId, otlp, subagents: subagentsFlag, ...where }, (args) =>
  withSource(args, (source) =>
    args.otlp
      ? Effect.gen(function* () {
          const events = Chunk.toReadonlyArray(yield* Stream.runCollect(source.export(args.sessionId)))
          // Loaded only here: the exporter costs every other command's start-up time.
          const { exportSessionTrace } = yield* Effect.promise(() => import("../../layers/telemetry/export.js"))
          const sent = yield* exportSessionTrace(events, packageVersion())
          yield* stderr(`sent ${sent.spans} span(s) of ${sent.traces} turn(s) to ${sent.url}\n`)
        })
      : withSubagents(
          {
            exportOne: source.export,
            subagents: args.subagents,
            isMissing: (error, childId) => error instanceof CliError && error.message === missing(childId).message,
            leftOut: (childId, parentId) => stderr(`left out session ${childId}: ${parentId}'s log names it as a subagent, but its own log does not say so\n`)
          },
          args.sessionId
        ).pipe(
          // A terminal may be what reads it: characters it would obey are written as `\uXXXX`, the same JSON.
          Stream.map((event) => `${JSON.stringify(event)}\n`),
          // Lines are written in groups: fewer writes.
          Stream.grouped(256),
          Stream.runForEach((chunk) => stdout(jsonText(Array.from(chunk).join(""))))
        )
  )
).pipe(Command.withDescription("Write a session's events to stdout as JSONL, or send its trace over OTLP (--otlp)"))

const unverified = Options.boolean("unverified").pipe(
  Options.withDescription("Import a log that breaks the engine's invariants (an unclosed turn, a tool started without an allow, ...), marked as unverified in its header")
)
const maxLineMib = Options.integer("max-line-mib").pipe(
  Options.withDescription(`Longest line (one event) to read, in MiB (default: ${DEFAULT_MAX_LINE_MIB})`),
  Options.filterMap((mib) => (mib > 0 ? Option.some(mib) : Option.none()), "--max-line-mib must be a positive number of MiB"),
  Options.withDefault(DEFAULT_MAX_LINE_MIB)
)

// Checked here rather than by Args.file, whose message for a missing file is its own.
const importFile = Args.text({ name: "file" }).pipe(
  Args.mapEffect((path) => Effect.mapError(existing("<file>", "File")(path), (error) => error.error)),
  Args.withDescription("A JSONL export (custom-agent sessions export)")
)

const asNew = Options.boolean("as-new").pipe(
  Options.withDescription("Import under new session ids (its subagents' sessions too, their links kept), for a session this store already has")
)

const importCommand = Command.make("import", { file: importFile, unverified, maxLineMib, asNew, ...where }, (args) =>
  withSource(args, (source) =>
    Effect.gen(function* () {
      const sessions = yield* readSessionFile(args.file, { maxLineBytes: args.maxLineMib * 1024 * 1024, unverified: args.unverified })
      // Checked before anything is written: an export of a session and its subagents goes in whole or not at all.
      const here = new Set((yield* source.list).map((listed) => listed.sessionId))
      const clash = sessions.find((session) => here.has(session.sessionId))
      if (clash !== undefined && !args.asNew) {
        return yield* new CliError({
          message: `session ${clash.sessionId} is already in this store; nothing was imported (--as-new imports the file under new session ids)`
        })
      }
      const ids = yield* Ids
      const mapping = new Map<string, string>()
      if (args.asNew) for (const session of sessions) mapping.set(session.sessionId, yield* ids.make("ses"))
      for (const [index, session] of sessions.entries()) {
        const imported = yield* source.importLog(args.asNew ? renameSessions(session.events, mapping) : session.events, args.unverified)
        const what = index === 0 ? "imported session" : "  and its subagent's session"
        const from = args.asNew ? ` (from ${session.sessionId})` : ""
        yield* stdout(`${what} ${imported.sessionId}${from} (${imported.events} events)\n`)
        if (imported.unverified !== undefined) yield* stderr(`custom-agent: imported unverified, marked so in its header: ${imported.unverified}\n`)
      }
    }).pipe(Effect.provide(IdsLive))
  )
).pipe(
  Command.withDescription(
    "Import a session (and its subagents' sessions) from a JSONL export; checks every line and the engine's invariants first and writes nothing when one fails; --as-new for a session this store has"
  )
)

const viewLimit = Options.integer("limit").pipe(
  Options.withDescription("At most this many sessions done, failed or interrupted, newest first (default: 20); every running one shows"),
  Options.filterMap((n) => (n > 0 ? Option.some(n) : Option.none()), "--limit must be a positive number"),
  Options.withDefault(20)
)
const viewJson = Options.boolean("json").pipe(Options.withDescription("The sessions once, as JSON (each one's id, times, status, title, cwd, ...)"))
const once = Options.boolean("once").pipe(Options.withDescription("Print the sessions once instead of following them (what a pipe gets)"))

/** The live view across workspaces (sessions-live/), loaded only when it runs. */
const view = (args: { readonly limit: number; readonly json: boolean; readonly once: boolean } & Where) =>
  Effect.gen(function* () {
    const [{ sessionsView }, { notificationsOn }, { userSettingsFile }] = yield* Effect.promise(() =>
      Promise.all([import("../sessions-live/command.js"), import("../../app/notification-settings.js"), import("../../layers/sandbox/settings.js")])
    )
    const notify = yield* notificationsOn(userSettingsFile(resolveConfigDir()))
    yield* sessionsView({ ...args, notify }, (use) => withReader(args, (reader) => use(reader.list)))
  })

export const sessionsCommand = Command.make("sessions", { limit: viewLimit, json: viewJson, once, ...where }, view).pipe(
  Command.withDescription(
    "Every workspace's sessions that run, wait for an answer, failed or are done, recent first: on a terminal a live view (Enter opens the selected session, a answers its question); piped, --once or --json print them once. Its commands list, show, export, import, rewind and fork sessions"
  ),
  Command.withSubcommands([list, show, rename, archive, remove, exportCommand, importCommand, ...rewindCommands])
)
