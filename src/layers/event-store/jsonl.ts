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
import { EventStore, type EventStoreShape, type SessionSummary } from "../../services/EventStore.js"
import { ensurePrivateDir, PRIVATE_FILE_MODE } from "../private-files.js"
import { type DecodedPage, decodedPages, locateDecodeError } from "./decoded-pages.js"
import { countLines, makeLineReader, readFirstLine, readLastLine } from "./jsonl-lines.js"
import { checkSequence, headerOf, type ListingHeader } from "./sequence.js"

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
  header: { readonly createdAt: string; readonly header: ListingHeader } | undefined
  /** Calls holding (or waiting for) the lock: an entry in use is never dropped from the cache. */
  users: number
}

/** Sessions whose file state is cached; beyond this, the oldest ones not in use are dropped (and read again when next used). */
const CACHED_SESSIONS = 256

const SAFE_SESSION_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/

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

    const sessionFile = (sessionId: string, operation: string): Effect.Effect<SessionFile, StoreFailure> =>
      Effect.suspend(() => {
        if (!SAFE_SESSION_ID.test(sessionId)) {
          return Effect.fail(
            new StoreFailure({
              operation,
              reason: `session id ${JSON.stringify(sessionId)} is not a safe file name (letters, digits, "_", "-", ".")`
            })
          )
        }
        let session = sessions.get(sessionId)
        if (session === undefined) {
          session = {
            sessionId,
            file: path.join(directory, `${sessionId}.jsonl`),
            lock: Effect.unsafeMakeSemaphore(1),
            tail: undefined,
            header: undefined,
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
      operation: string,
      use: (session: SessionFile) => Effect.Effect<A, E>
    ): Effect.Effect<A, E | StoreFailure> =>
      Effect.flatMap(sessionFile(sessionId, operation), (session) => {
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
        return withSession(first.sessionId, "append", (session) =>
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
      })

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
          const session = yield* sessionFile(sessionId, "replay")
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

    /** Header from the first line (read once, cached), last sequence and time from the tail. */
    const summaryOf = (session: SessionFile): Effect.Effect<SessionSummary | undefined, EventStoreError> =>
      Effect.gen(function* () {
        const tail = yield* ensureTail(session, "listSessions")
        if (tail.last === 0 || tail.updatedAt === undefined) return undefined
        const header = session.header ?? (yield* readHeader(session, tail.end))
        session.header = header
        return {
          sessionId: session.sessionId,
          createdAt: header.createdAt,
          updatedAt: tail.updatedAt,
          lastSequence: tail.last,
          ...header.header
        }
      })

    const readHeader = (session: SessionFile, limit: number) =>
      Effect.scoped(
        Effect.gen(function* () {
          const opened = yield* openForRead("listSessions", session.file)
          const text = Option.isNone(opened)
            ? undefined
            : yield* io("listSessions", session.file, () => readFirstLine(opened.value, limit))
          if (text === undefined) {
            return yield* Effect.fail(
              new StoreFailure({ operation: "listSessions", reason: `${session.file}: the first line disappeared` })
            )
          }
          const first = yield* Either.mapLeft(decodeEventJson(text, 1), (error) => locateDecodeError(error, session.file))
          return { createdAt: first.timestamp, header: headerOf(first) }
        })
      )

    const listSessions = Effect.gen(function* () {
      const names = yield* io("listSessions", directory, () => fsp.readdir(directory))
      const ids = names
        .filter((name) => name.endsWith(".jsonl"))
        .map((name) => name.slice(0, -".jsonl".length))
        .filter((id) => SAFE_SESSION_ID.test(id))
      const summaries = yield* Effect.forEach(ids, (id) => withSession(id, "listSessions", summaryOf), {
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
        withSession(sessionId, "head", (session) =>
          Effect.map(ensureTail(session, "head"), (tail) => (tail.last === 0 ? Option.none() : Option.some(tail.last)))
        ),
      listSessions
    }
  })

export const layer = (options: JsonlStoreOptions): Layer.Layer<EventStore, StoreFailure> =>
  Layer.effect(EventStore, make(options))
