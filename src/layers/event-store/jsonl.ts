import { messageOf } from "../../domain/cause-message.js"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import { decodeEventJson } from "../../domain/decode.js"
import { EventDecodeError, type EventStoreError, StoreFailure } from "../../domain/errors.js"
import type { AgentEvent } from "../../domain/events.js"
import { type InvalidSessionId, isSessionId, sessionIdProblem } from "../../domain/ids.js"
import { applyListingChange, headerOf, LISTING_EVENT_TYPES, type ListingHeader, listingChange } from "../../domain/session-listing.js"
import { EventStore, type EventStoreShape, type SessionSummary } from "../../services/EventStore.js"
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "../private-files.js"
import { type DecodedPage, decodedPages, locateDecodeError } from "./decoded-pages.js"
import { countLines, makeLineReader, readLastLine } from "./jsonl-lines.js"
import { makeLocalLeases } from "./local-leases.js"
import { checkSequence } from "./sequence.js"

export interface JsonlStoreOptions {
  /** One `<sessionId>.jsonl` per session; created if missing. */
  readonly directory: string
  /**
   * A last line without its "\n" (a crash mid-write): `skip` ignores it, and cuts it off
   * before the next append; `fail` makes reads and appends fail with `truncated_line`.
   */
  readonly truncatedLastLine: "skip" | "fail"
}

/** What the store knows about the end of a session file. */
interface Tail {
  readonly last: number
  /** Bytes of complete lines; in skip mode a truncated line may follow, up to `size`. */
  readonly end: number
  readonly size: number
  readonly updatedAt: string | undefined
}

interface SessionFile {
  readonly sessionId: string
  readonly file: string
  /** Serializes appends (and tail loads) so two fibers never interleave lines. */
  readonly lock: Effect.Semaphore
  tail: Tail | undefined
  /** Calls holding (or waiting for) the lock: an entry in use is never dropped from the cache. */
  users: number
}

/** Sessions whose file state is cached; beyond this, the oldest ones not in use are dropped (and read again when next used). */
const CACHED_SESSIONS = 256

/** What a listing shows of a session besides its tail: folded from its events up to `through`. */
interface Listing {
  readonly createdAt: string
  readonly header: ListingHeader
  readonly through: number
}

/** A line naming none of the types that change a listing is not decoded for a listing. */
const mayChangeListing = (line: string) => LISTING_EVENT_TYPES.some((type) => line.includes(type))

const isNotFound = (error: unknown) =>
  typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT"

const io = <A>(operation: string, file: string, run: () => Promise<A>) =>
  Effect.tryPromise({ try: run, catch: (error) => new StoreFailure({ operation, reason: `${file}: ${messageOf(error)}`, cause: error }) })

/** A file handle closed with the scope; none when the file does not exist. */
const openForRead = (operation: string, file: string) =>
  Effect.acquireRelease(
    io(operation, file, () =>
      fsp.open(file, "r").then(
        (handle) => Option.some(handle),
        (error: unknown) => (isNotFound(error) ? Option.none() : Promise.reject(error))
      )
    ),
    (handle) =>
      Option.match(handle, {
        onNone: () => Effect.void,
        onSome: (h) =>
          io("close", file, () => h.close()).pipe(
            Effect.catchAll((error) => Effect.logWarning(`could not close ${file}`, error))
          )
      })
  )

const truncatedLine = (file: string, line: number) =>
  new EventDecodeError({
    problem: "truncated_line",
    message: `${file}: line ${line}: truncated last line (no newline at the end of the file)`,
    line
  })

/**
 * One JSON line per event, one file per session, for export, import and golden transcripts.
 * Appends are serialized per session within this instance; the store assumes it is the only
 * writer of its directory. A write reaches the OS before append returns (it survives the
 * process crashing) but is not fsynced, so a power loss may cut the last lines: that is
 * what `truncatedLastLine` is for.
 */
export const make = (options: JsonlStoreOptions): Effect.Effect<EventStoreShape, StoreFailure> =>
  Effect.gen(function* () {
    const directory = path.resolve(options.directory)
    yield* Effect.try({
      try: () => ensurePrivateDir(directory),
      catch: (error) => new StoreFailure({ operation: "open", reason: `${directory}: ${messageOf(error)}`, cause: error })
    })
    const sessions = new Map<string, SessionFile>()
    /**
     * Each listed session's listing, kept current by this instance's appends (the store is its
     * directory's only writer), so a session's file is read whole for its first listing only. Kept apart
     * from the file cache, whose trimming would make every listing of many sessions read them
     * all again; pruned to the directory's sessions at each listing.
     */
    const listings = new Map<string, Listing>()

    /** The id becomes a file name here: the one rule (`src/domain/ids.ts`) keeps it a plain name in `directory`. */
    const sessionFile = (sessionId: string): Effect.Effect<SessionFile, InvalidSessionId> =>
      Effect.suspend(() => {
        const invalid = sessionIdProblem(sessionId)
        if (invalid !== undefined) return Effect.fail(invalid)
        let session = sessions.get(sessionId)
        if (session === undefined) {
          session = {
            sessionId,
            file: path.join(directory, `${sessionId}.jsonl`),
            lock: Effect.unsafeMakeSemaphore(1),
            tail: undefined,
            users: 0
          }
          sessions.set(sessionId, session)
        }
        return Effect.succeed(session)
      })

    const trimCache = () => {
      for (const [sessionId, session] of sessions) {
        if (sessions.size <= CACHED_SESSIONS) return
        if (session.users === 0) sessions.delete(sessionId)
      }
    }

    const withSession = <A, E>(
      sessionId: string,
      use: (session: SessionFile) => Effect.Effect<A, E>
    ): Effect.Effect<A, E | InvalidSessionId> =>
      Effect.flatMap(sessionFile(sessionId), (session) => {
        // Counted in the same step that found the entry, so the trim cannot drop it in between.
        session.users++
        return session.lock.withPermits(1)(use(session)).pipe(
          Effect.ensuring(
            Effect.sync(() => {
              session.users--
              trimCache()
            })
          )
        )
      })

    /** Reads the end of the file backwards; never the whole file (line counts only on errors). */
    const loadTail = (session: SessionFile, operation: string): Effect.Effect<Tail, EventStoreError> =>
      Effect.scoped(
        Effect.gen(function* () {
          const { file } = session
          const opened = yield* openForRead(operation, file)
          if (Option.isNone(opened)) return { last: 0, end: 0, size: 0, updatedAt: undefined }
          const handle = opened.value
          const { size } = yield* io(operation, file, () => handle.stat())
          const lastLine = yield* io(operation, file, () => readLastLine(handle, size))
          if (size > lastLine.end && options.truncatedLastLine === "fail") {
            const line = (yield* io(operation, file, () => countLines(handle, lastLine.end))) + 1
            return yield* Effect.fail(truncatedLine(file, line))
          }
          if (lastLine.text === undefined) return { last: 0, end: 0, size, updatedAt: undefined }
          const decoded = decodeEventJson(lastLine.text)
          if (Either.isLeft(decoded) || decoded.right.sessionId !== session.sessionId) {
            const error = Either.isLeft(decoded)
              ? decoded.left
              : new EventDecodeError({
                  problem: "invalid_payload",
                  message: `the event belongs to session ${decoded.right.sessionId}`,
                  eventType: decoded.right.type
                })
            const line = (yield* io(operation, file, () => countLines(handle, lastLine.start))) + 1
            return yield* Effect.fail(locateDecodeError(error, file, line))
          }
          return { last: decoded.right.sequence, end: lastLine.end, size, updatedAt: decoded.right.timestamp }
        })
      )

    const ensureTail = (session: SessionFile, operation: string): Effect.Effect<Tail, EventStoreError> =>
      session.tail !== undefined
        ? Effect.succeed(session.tail)
        : Effect.tap(loadTail(session, operation), (tail) =>
            Effect.sync(() => {
              session.tail = tail
            })
          )

    /** Skip mode: cut a truncated last line off so the next line does not glue onto it. */
    const repair = (session: SessionFile, tail: Tail): Effect.Effect<Tail, StoreFailure> =>
      io("append", session.file, () => fsp.truncate(session.file, tail.end)).pipe(
        Effect.zipRight(
          Effect.logWarning(
            `${session.file}: dropped a truncated last line (${tail.size - tail.end} bytes) before appending`
          )
        ),
        Effect.as({ ...tail, size: tail.end }),
        Effect.tap((repaired) =>
          Effect.sync(() => {
            session.tail = repaired
          })
        )
      )

    const appendAll = (events: ReadonlyArray<AgentEvent>): Effect.Effect<void, EventStoreError> =>
      Effect.suspend(() => {
        const first = events[0]
        const lastEvent = events[events.length - 1]
        if (first === undefined || lastEvent === undefined) return Effect.void
        return withSession(first.sessionId, (session) =>
          Effect.gen(function* () {
            const current = yield* ensureTail(session, "append")
            yield* checkSequence(current.last, events)
            // Not interruptible: once bytes may reach the file, the cached tail must learn of them.
            yield* Effect.uninterruptible(write(session, current, events, lastEvent))
          })
        )
      })

    const write = (session: SessionFile, current: Tail, events: ReadonlyArray<AgentEvent>, lastEvent: AgentEvent) =>
      Effect.gen(function* () {
        const tail = current.size > current.end ? yield* repair(session, current) : current
        // One write for the whole batch; after a failed one the tail is unknown, so it is re-read.
        const data = events.map((event) => `${JSON.stringify(event)}\n`).join("")
        // A new session's file is created private: it holds the conversation and file contents.
        yield* io("append", session.file, () => fsp.appendFile(session.file, data, { encoding: "utf8", mode: PRIVATE_FILE_MODE })).pipe(
          Effect.tapError(() =>
            Effect.sync(() => {
              session.tail = undefined
            })
          )
        )
        const end = tail.end + Buffer.byteLength(data, "utf8")
        session.tail = { last: lastEvent.sequence, end, size: end, updatedAt: lastEvent.timestamp }
        noteListing(session.sessionId, tail.last, events)
      })

    /** Carries a listed session's listing over an append; one not listed yet is read when it is. */
    const noteListing = (sessionId: string, before: number, events: ReadonlyArray<AgentEvent>) => {
      const listing = listings.get(sessionId)
      if (listing === undefined || listing.through !== before) return
      listings.set(sessionId, { ...listing, header: applyListingChange(listing.header, listingChange(events)), through: before + events.length })
    }

    /**
     * Line n of a log holds sequence n (it starts at 1 with no gaps), so lines up to
     * `afterSequence` are skipped undecoded, and every decoded line must hold its own number.
     */
    const decodeLines = (
      session: SessionFile,
      lines: ReadonlyArray<string>,
      firstLine: number,
      afterSequence: number
    ): Pick<DecodedPage<void>, "events" | "error"> => {
      const events: Array<AgentEvent> = []
      for (let i = Math.max(0, afterSequence - firstLine + 1); i < lines.length; i++) {
        const line = firstLine + i
        const decoded = decodeEventJson(lines[i] ?? "", line)
        if (Either.isLeft(decoded)) return { events, error: locateDecodeError(decoded.left, session.file) }
        const event = decoded.right
        if (event.sessionId !== session.sessionId || event.sequence !== line) {
          const error = new EventDecodeError({
            problem: "invalid_payload",
            message: `${session.file}: line ${line}: holds session ${event.sessionId} sequence ${event.sequence}`,
            eventType: event.type,
            line
          })
          return { events, error }
        }
        events.push(event)
      }
      return { events, error: undefined }
    }

    const replay = (sessionId: string, afterSequence = 0): Stream.Stream<AgentEvent, EventStoreError> =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          const session = yield* sessionFile(sessionId)
          // A known tail ends at a line boundary: lines appended after this point are not read.
          const known = session.tail?.end
          const opened = yield* openForRead("replay", session.file)
          if (Option.isNone(opened)) return Stream.empty
          const handle = opened.value
          const limit = known ?? (yield* io("replay", session.file, () => handle.stat())).size
          const reader = makeLineReader(handle, limit)
          const end: DecodedPage<void> = { events: [], error: undefined, next: Option.none() }
          return decodedPages<void, StoreFailure, never>(undefined, () =>
            io("replay", session.file, reader.next).pipe(
              Effect.map((batch): DecodedPage<void> => {
                if (batch === undefined) {
                  const truncated = reader.rest() !== "" && options.truncatedLastLine === "fail"
                  return truncated ? { ...end, error: truncatedLine(session.file, reader.nextLine()) } : end
                }
                const page = decodeLines(session, batch.lines, batch.firstLine, afterSequence)
                return { ...page, next: page.error === undefined ? Option.some(undefined) : Option.none() }
              })
            )
          )
        })
      )

    /** The listing from the events (read once, then kept by appends), last sequence and time from the tail. */
    const summaryOf = (session: SessionFile): Effect.Effect<SessionSummary | undefined, EventStoreError> =>
      Effect.gen(function* () {
        const tail = yield* ensureTail(session, "listSessions")
        if (tail.last === 0 || tail.updatedAt === undefined) return undefined
        const known = listings.get(session.sessionId)
        const listing = known !== undefined && known.through === tail.last ? known : yield* readListing(session, tail)
        listings.set(session.sessionId, listing)
        return {
          sessionId: session.sessionId,
          createdAt: listing.createdAt,
          updatedAt: tail.updatedAt,
          lastSequence: tail.last,
          ...listing.header
        }
      })

    /** The first line's header, then each later line that may change it; the others are not decoded. */
    const readListing = (session: SessionFile, tail: Tail): Effect.Effect<Listing, EventStoreError> =>
      Effect.scoped(
        Effect.gen(function* () {
          const opened = yield* openForRead("listSessions", session.file)
          if (Option.isNone(opened)) {
            return yield* Effect.fail(new StoreFailure({ operation: "listSessions", reason: `${session.file}: the file disappeared` }))
          }
          const reader = makeLineReader(opened.value, tail.end)
          const next = io("listSessions", session.file, reader.next)
          let listing: Omit<Listing, "through"> | undefined
          for (let batch = yield* next; batch !== undefined; batch = yield* next) {
            for (const [i, text] of batch.lines.entries()) {
              const line = batch.firstLine + i
              if (line !== 1 && !mayChangeListing(text)) continue
              const event = yield* Either.mapLeft(decodeEventJson(text, line), (error) => locateDecodeError(error, session.file))
              const change = listingChange([event])
              listing =
                listing === undefined
                  ? { createdAt: event.timestamp, header: applyListingChange(headerOf(event), change) }
                  : { ...listing, header: applyListingChange(listing.header, change) }
            }
          }
          if (listing === undefined) {
            return yield* Effect.fail(new StoreFailure({ operation: "listSessions", reason: `${session.file}: the first line disappeared` }))
          }
          return { ...listing, through: tail.last }
        })
      )

    const listSessions = Effect.gen(function* () {
      const names = yield* io("listSessions", directory, () => fsp.readdir(directory))
      const ids = names
        .filter((name) => name.endsWith(".jsonl"))
        .map((name) => name.slice(0, -".jsonl".length))
        .filter(isSessionId)
      const present = new Set(ids)
      for (const id of listings.keys()) if (!present.has(id)) listings.delete(id)
      const summaries = yield* Effect.forEach(ids, (id) => withSession(id, summaryOf), {
        concurrency: 8
      })
      return summaries
        .filter((summary): summary is SessionSummary => summary !== undefined)
        .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    })

    return {
      append: (event) => appendAll([event]),
      appendAll,
      replay,
      head: (sessionId) =>
        withSession(sessionId, (session) =>
          Effect.map(ensureTail(session, "head"), (tail) => (tail.last === 0 ? Option.none() : Option.some(tail.last)))
        ),
      listSessions,
      deleteSession: (sessionId) =>
        withSession(sessionId, (session) =>
          io("deleteSession", session.file, () => fsp.rm(session.file, { force: true })).pipe(
            // Whatever happened to the file, what is cached of it is no longer known.
            Effect.ensuring(
              Effect.sync(() => {
                session.tail = undefined
                listings.delete(sessionId)
              })
            )
          )
        ),
      // The directory has one writer, this process: its leases need not leave it.
      leases: makeLocalLeases()
    }
  })

export const layer = (options: JsonlStoreOptions): Layer.Layer<EventStore, StoreFailure> =>
  Layer.effect(EventStore, make(options))
