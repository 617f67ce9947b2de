import { Args, Command } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { resolveDataDir, type StoreKind } from "../../app/locations.js"
import { storeLayer } from "../../app/store.js"
import type { AgentEvent } from "../../domain/events.js"
import { EventStore } from "../../services/EventStore.js"
import { CliError } from "../errors.js"
import { readSessionFile } from "../import-file.js"
import { stdout, useColor, writeSegments } from "../io.js"
import * as shared from "../options.js"
import { describeTransport, remoteLayer, server, token } from "../remote.js"
import { makeRenderer } from "../render.js"
import { formatTable } from "../table.js"

const where = { dataDir: shared.dataDir, store: shared.store, server, token }

interface Where {
  readonly dataDir: Option.Option<string>
  readonly store: StoreKind
  readonly server: Option.Option<string>
  readonly token: Option.Option<string>
}

export interface Row {
  readonly sessionId: string
  readonly updatedAt: string
  readonly lastSequence: number
  readonly title?: string | undefined
  readonly cwd?: string | undefined
  readonly running?: boolean
}

/** Where a session's events come from: the local store, or a server's API. */
export interface Source {
  readonly list: Effect.Effect<ReadonlyArray<Row>, unknown>
  readonly events: (sessionId: string) => Stream.Stream<AgentEvent, unknown>
  readonly importLog: (events: ReadonlyArray<AgentEvent>) => Effect.Effect<void, unknown>
}

export const missing = (sessionId: string) => new CliError({ message: `no session ${sessionId} (see: custom-agent sessions list)` })

const localSource = Effect.gen(function* () {
  const store = yield* EventStore
  const source: Source = {
    list: store.listSessions,
    events: (sessionId) =>
      Stream.unwrap(
        Effect.map(store.head(sessionId), (head): Stream.Stream<AgentEvent, unknown> =>
          Option.isNone(head) ? Stream.fail(missing(sessionId)) : store.replay(sessionId)
        )
      ),
    importLog: (events) =>
      Effect.gen(function* () {
        const first = events[0]
        if (first === undefined) return
        const existing = yield* store.head(first.sessionId)
        if (Option.isSome(existing)) {
          return yield* new CliError({ message: `session ${first.sessionId} already exists (${existing.value} events); nothing was imported` })
        }
        yield* store.appendAll(events)
      })
  }
  return source
})

/** Runs a command against the local store, or the server named by --server. */
const withSource = <A>(args: Where, use: (source: Source) => Effect.Effect<A, unknown>) => {
  if (Option.isSome(args.server)) {
    const url = args.server.value
    return Effect.flatMap(Effect.promise(() => import("./sessions-remote.js")), (remote) => Effect.flatMap(remote.remoteSource, use)).pipe(
      describeTransport(url),
      Effect.provide(remoteLayer(url, args.token))
    )
  }
  return Effect.flatMap(localSource, use).pipe(Effect.provide(storeLayer(args.store, resolveDataDir(Option.getOrUndefined(args.dataDir)))))
}

const sessionId = Args.text({ name: "session-id" })

const list = Command.make("list", where, (args) =>
  withSource(args, (source) =>
    Effect.gen(function* () {
      const sessions = yield* source.list
      if (sessions.length === 0) return yield* stdout('no sessions yet: start one with custom-agent run "..."\n')
      const rows = sessions.map((s) => [
        s.sessionId + (s.running === true ? " *" : ""),
        s.updatedAt.slice(0, 19).replace("T", " "),
        String(s.lastSequence),
        s.title ?? "",
        s.cwd ?? ""
      ])
      yield* stdout(formatTable(["SESSION", "UPDATED", "EVENTS", "TITLE", "CWD"], rows))
    })
  )
).pipe(Command.withDescription("List sessions, most recent first (* running)"))

const show = Command.make("show", { sessionId, ...where }, (args) =>
  withSource(args, (source) => {
    const renderer = makeRenderer({ color: useColor(process.stdout), live: false })
    return source.events(args.sessionId).pipe(Stream.runForEach((event) => writeSegments(renderer.render(event))))
  })
).pipe(Command.withDescription("Print a session as a readable timeline"))

const exportCommand = Command.make("export", { sessionId, ...where }, (args) =>
  withSource(args, (source) =>
    source.events(args.sessionId).pipe(
      Stream.map((event) => `${JSON.stringify(event)}\n`),
      // Lines are written in groups: fewer writes, the same bytes.
      Stream.grouped(256),
      Stream.runForEach((chunk) => stdout(Array.from(chunk).join("")))
    )
  )
).pipe(Command.withDescription("Write a session's events to stdout as JSONL"))

const importCommand = Command.make("import", { file: Args.file({ name: "file", exists: "yes" }), ...where }, (args) =>
  withSource(args, (source) =>
    Effect.gen(function* () {
      const events = yield* readSessionFile(args.file)
      yield* source.importLog(events)
      yield* stdout(`imported session ${events[0]?.sessionId ?? ""} (${events.length} events)\n`)
    })
  )
).pipe(Command.withDescription("Import a session from a JSONL export; validates every line first and writes all or nothing"))

export const sessionsCommand = Command.make("sessions").pipe(
  Command.withDescription("List, show, export and import sessions"),
  Command.withSubcommands([list, show, exportCommand, importCommand])
)
