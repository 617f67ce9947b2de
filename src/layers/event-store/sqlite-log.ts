import { messageOf } from "../../domain/cause-message.js"
import type Database from "better-sqlite3"
import SqliteDatabase from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { EventDecodeError, SequenceConflict, StoreFailure } from "../../domain/errors.js"
import { decodeEventJson } from "../../domain/decode.js"
import type { AgentEvent } from "../../domain/events.js"
import { type DecodedPage, decodedPages, locateDecodeError } from "./decoded-pages.js"
import { findSequenceProblem, headerOf, type MixedSessions } from "./sequence.js"

/** Rows per replay page: enough to amortize a statement, small enough to keep memory flat. */
const PAGE_SIZE = 2000
/** Sessions whose last sequence is cached, the most recently written kept. */
const CACHED_TAILS = 1024

/** How long a statement waits for another connection's write lock before failing. */
export const BUSY_TIMEOUT_MS = 5000

export interface ConnectionOptions {
  readonly filename: string
  readonly synchronous: "normal" | "full"
  readonly pageSize: number | undefined
}

const validPageSize = (n: number) => Number.isInteger(n) && n >= 512 && n <= 65536 && (n & (n - 1)) === 0

export const storeFailure = (operation: string) => (cause: unknown) => new StoreFailure({ operation, reason: messageOf(cause), cause })

/**
 * Opens the raw better-sqlite3 connection the hot path runs on. It is opened before the
 * Effect client so `page_size` still applies to a new file (it is fixed once WAL is on).
 * synchronous=NORMAL in WAL mode syncs at checkpoints, not at each commit: a commit survives
 * the process crashing, but a power loss or OS crash may lose the last commits (never
 * corrupting the file). FULL syncs the WAL at every commit and survives those too.
 */
export const openConnection = (options: ConnectionOptions): Database.Database => {
  if (options.pageSize !== undefined && !validPageSize(options.pageSize)) {
    throw new Error(`pageSize ${options.pageSize} is not a power of two between 512 and 65536`)
  }
  const db = new SqliteDatabase(options.filename, { timeout: BUSY_TIMEOUT_MS })
  try {
    if (options.pageSize !== undefined) db.pragma(`page_size = ${options.pageSize}`)
    const mode = db.pragma("journal_mode = WAL", { simple: true })
    if (mode !== "wal") throw new Error(`${options.filename} cannot use WAL (journal_mode is ${String(mode)})`)
    db.pragma(`synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

const isConstraintViolation = (error: unknown) =>
  error instanceof SqliteDatabase.SqliteError &&
  (error.code === "SQLITE_CONSTRAINT_PRIMARYKEY" || error.code === "SQLITE_CONSTRAINT_UNIQUE")

export interface SqliteLog {
  readonly appendAll: (events: ReadonlyArray<AgentEvent>) => Effect.Effect<void, SequenceConflict | StoreFailure>
  readonly head: (sessionId: string) => Effect.Effect<Option.Option<number>, StoreFailure>
  readonly replay: (sessionId: string, afterSequence: number) => Stream.Stream<AgentEvent, StoreFailure | EventDecodeError>
}

/**
 * Append, head and replay on a raw connection with prepared statements: through @effect/sql's
 * client an insert pays a prepare-cache lookup, a fiber hop and a span per statement and
 * misses the event-store bench's target against the raw driver; here an append is one
 * synchronous call in one effect (figures in docs/performance.md). Tables must exist
 * (migrations run first).
 */
export const makeSqliteLog = (db: Database.Database): SqliteLog => {
  const insertEvent = db.prepare<[string, number, string, string | null, string, string]>(
    "INSERT INTO events (session_id, sequence, type, turn_id, timestamp, event) VALUES (?, ?, ?, ?, ?, ?)"
  )
  const insertSession = db.prepare<[string, string, string | null, string | null, string | null, string | null]>(
    "INSERT INTO sessions (session_id, created_at, cwd, client, title, model) VALUES (?, ?, ?, ?, ?, ?)"
  )
  const selectLast = db.prepare<[string]>("SELECT max(sequence) FROM events WHERE session_id = ?").pluck()
  // Only the JSON: the keyset and the integrity check use the decoded sequence (see readPage).
  const selectPage = db
    .prepare<[string, number, number]>(
      "SELECT event FROM events WHERE session_id = ? AND sequence > ? ORDER BY sequence LIMIT ?"
    )
    .pluck()

  /**
   * Last sequence per session, loaded lazily. Only this instance advances it, so it can only
   * be behind the file (another process appended): then the primary key rejects the insert,
   * and we re-read before answering. Hence "exactly next" holds across processes.
   */
  const tails = new Map<string, number>()

  /** Keeps the cache to the sessions written last; a dropped one is read again (one indexed query). */
  const cacheTail = (sessionId: string, last: number) => {
    tails.delete(sessionId)
    tails.set(sessionId, last)
    const oldest = tails.keys().next()
    if (tails.size > CACHED_TAILS && oldest.done !== true) tails.delete(oldest.value)
  }

  const readLast = (sessionId: string): number => {
    const value = selectLast.get(sessionId)
    const last = typeof value === "number" ? value : 0
    cacheTail(sessionId, last)
    return last
  }

  const insertOne = (event: AgentEvent) => {
    if (event.sequence === 1) {
      const header = headerOf(event)
      insertSession.run(
        event.sessionId,
        event.timestamp,
        header.cwd ?? null,
        header.client ?? null,
        header.title ?? null,
        header.model ?? null
      )
    }
    insertEvent.run(event.sessionId, event.sequence, event.type, event.turnId ?? null, event.timestamp, JSON.stringify(event))
  }

  const insertBatch = db.transaction((events: ReadonlyArray<AgentEvent>) => {
    for (const event of events) insertOne(event)
  })

  const write = (events: ReadonlyArray<AgentEvent>): SequenceConflict | StoreFailure | MixedSessions | undefined => {
    const first = events[0]
    if (first === undefined) return undefined
    const sessionId = first.sessionId
    try {
      let last = tails.get(sessionId) ?? readLast(sessionId)
      let problem = findSequenceProblem(last, events)
      if (problem !== undefined && problem._tag === "SequenceConflict") {
        // The cache may be behind another process: look once more before refusing.
        last = readLast(sessionId)
        problem = findSequenceProblem(last, events)
      }
      if (problem !== undefined) return problem
      // A single event after the first needs no explicit transaction: autocommit is atomic.
      if (events.length === 1 && first.sequence !== 1) insertOne(first)
      else insertBatch.immediate(events)
      cacheTail(sessionId, last + events.length)
      return undefined
    } catch (error) {
      tails.delete(sessionId)
      if (!isConstraintViolation(error)) return storeFailure("append")(error)
      try {
        return new SequenceConflict({ sessionId, expected: readLast(sessionId) + 1, actual: first.sequence })
      } catch (readError) {
        return storeFailure("append")(readError)
      }
    }
  }

  const appendAll = (events: ReadonlyArray<AgentEvent>) =>
    Effect.suspend(() => {
      const problem = write(events)
      if (problem === undefined) return Effect.void
      return problem._tag === "MixedSessions" ? Effect.dieMessage(problem.message) : Effect.fail(problem)
    })

  /**
   * A log is gap-free from 1, so the rows after `after` must hold sequences after+1, after+2,
   * ...: checking each decoded event against that catches a row whose JSON does not match its
   * key, and makes the decoded sequence a safe keyset cursor.
   */
  const readPage = (sessionId: string, after: number, until: number): DecodedPage<number> => {
    const limit = Math.min(PAGE_SIZE, until - after)
    const rows: ReadonlyArray<unknown> = limit > 0 ? selectPage.all(sessionId, after, limit) : []
    const events: Array<AgentEvent> = []
    let expected = after + 1
    const where = () => `session ${sessionId} sequence ${expected}`
    for (const text of rows) {
      if (typeof text !== "string") {
        const error = new EventDecodeError({ problem: "not_an_event", message: `${where()}: the row holds no event text` })
        return { events, error, next: Option.none() }
      }
      const decoded = decodeEventJson(text)
      if (Either.isLeft(decoded)) return { events, error: locateDecodeError(decoded.left, where()), next: Option.none() }
      const event = decoded.right
      if (event.sessionId !== sessionId || event.sequence !== expected) {
        const error = new EventDecodeError({
          problem: "invalid_payload",
          message: `${where()}: the row holds the event of session ${event.sessionId} sequence ${event.sequence}`,
          eventType: event.type
        })
        return { events, error, next: Option.none() }
      }
      events.push(event)
      expected++
    }
    const reached = expected - 1
    return { events, error: undefined, next: rows.length < limit || reached >= until ? Option.none() : Option.some(reached) }
  }

  return {
    appendAll,
    // Always asks the file, so a reader sees appends from other processes too.
    head: (sessionId) =>
      Effect.try({
        try: () => {
          const last = readLast(sessionId)
          return last === 0 ? Option.none() : Option.some(last)
        },
        catch: storeFailure("head")
      }),
    // Keyset pages: each page is one short read; no cursor stays open between pulls. The
    // replay ends at the head it saw when it started, like the other stores: a subscriber
    // replays up to there and takes later events live, with no overlap.
    replay: (sessionId, afterSequence) =>
      Stream.unwrap(
        Effect.map(Effect.try({ try: () => readLast(sessionId), catch: storeFailure("replay") }), (until) =>
          decodedPages(afterSequence, (after) =>
            Effect.try({ try: () => readPage(sessionId, after, until), catch: storeFailure("replay") })
          )
        )
      )
  }
}
