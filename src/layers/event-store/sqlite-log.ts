import type Database from "better-sqlite3"
import SqliteDatabase from "better-sqlite3"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { SequenceConflict, type StoreFailure } from "../../domain/errors.js"
import type { AgentEvent } from "../../domain/events.js"
import { headerOf, type ListingChange, listingChange } from "../../domain/session-listing.js"
import { keysetReplay } from "./keyset-pages.js"
import { findSequenceProblem, type MixedSessions } from "./sequence.js"
import type { SqlLog } from "./sql-store.js"
import { storeFailure } from "./store-failure.js"

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

/**
 * Append, head and replay on a raw connection with prepared statements: through @effect/sql's
 * client an insert pays a prepare-cache lookup, a fiber hop and a span per statement and
 * misses the event-store bench's target against the raw driver; here an append is one
 * synchronous call in one effect (figures in docs/performance.md). Tables must exist
 * (migrations run first).
 */
export const makeSqliteLog = (db: Database.Database): SqlLog => {
  const insertEvent = db.prepare<[string, number, string, string | null, string, string]>(
    "INSERT INTO events (session_id, sequence, type, turn_id, timestamp, event) VALUES (?, ?, ?, ?, ?, ?)"
  )
  const insertSession = db.prepare<[string, string, string | null, string | null, string | null, string | null, string | null]>(
    "INSERT INTO sessions (session_id, created_at, cwd, client, title, model, parent_session_id) VALUES (?, ?, ?, ?, ?, ?, ?)"
  )
  const setTitle = db.prepare<[string, string]>("UPDATE sessions SET title = ? WHERE session_id = ?")
  const setArchived = db.prepare<[number, string]>("UPDATE sessions SET archived = ? WHERE session_id = ?")
  const setOpenTurn = db.prepare<[string | null, string]>("UPDATE sessions SET open_turn = ? WHERE session_id = ?")
  const setLastStop = db.prepare<[string, string]>("UPDATE sessions SET last_stop = ? WHERE session_id = ?")
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
        header.model ?? null,
        header.parentSessionId ?? null
      )
    }
    insertEvent.run(event.sessionId, event.sequence, event.type, event.turnId ?? null, event.timestamp, JSON.stringify(event))
  }

  /** Keeps the listing's header columns in step with the log, in the append's transaction. */
  const updateListing = (sessionId: string, change: ListingChange) => {
    if (change.title !== undefined) setTitle.run(change.title, sessionId)
    if (change.archived !== undefined) setArchived.run(change.archived ? 1 : 0, sessionId)
    if (change.openTurnId !== undefined) setOpenTurn.run(change.openTurnId, sessionId)
    if (change.lastStopReason !== undefined) setLastStop.run(change.lastStopReason, sessionId)
  }

  const deleteEvents = db.prepare<[string]>("DELETE FROM events WHERE session_id = ?")
  const deleteListing = db.prepare<[string]>("DELETE FROM sessions WHERE session_id = ?")
  const deleteBoth = db.transaction((sessionId: string) => {
    deleteEvents.run(sessionId)
    deleteListing.run(sessionId)
  })

  const insertBatch = db.transaction((events: ReadonlyArray<AgentEvent>, change: ListingChange | undefined) => {
    for (const event of events) insertOne(event)
    const first = events[0]
    if (change !== undefined && first !== undefined) updateListing(first.sessionId, change)
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
      // A single event after the first that leaves the listing as it was needs no explicit transaction: autocommit is atomic.
      const change = listingChange(events)
      if (events.length === 1 && first.sequence !== 1 && change === undefined) insertOne(first)
      else insertBatch.immediate(events, change)
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

  return {
    appendAll,
    deleteSession: (sessionId) =>
      Effect.try({
        try: () => {
          deleteBoth.immediate(sessionId)
          // Its next append starts a new log at 1.
          tails.delete(sessionId)
        },
        catch: storeFailure("deleteSession")
      }),
    // Always asks the file, so a reader sees appends from other processes too.
    head: (sessionId) =>
      Effect.try({
        try: () => {
          const last = readLast(sessionId)
          return last === 0 ? Option.none() : Option.some(last)
        },
        catch: storeFailure("head")
      }),
    replay: (sessionId, afterSequence) =>
      keysetReplay(
        sessionId,
        afterSequence,
        Effect.try({ try: () => readLast(sessionId), catch: storeFailure("replay") }),
        (after, limit) => Effect.try({ try: () => selectPage.all(sessionId, after, limit), catch: storeFailure("replay") })
      )
  }
}
