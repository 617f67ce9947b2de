import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as SqliteStore from "../../../src/layers/event-store/sqlite.js"
import { delta, range, replayAll, replayUntilFailure, tempDir, turnCompleted, turnFailed, turnStarted } from "./fixtures.js"

const dbFile = Effect.map(tempDir, (dir) => path.join(dir, "events.db"))

/** A separate plain connection, as another process or a person with the sqlite3 CLI would have. */
const rawConnection = (filename: string) =>
  Effect.acquireRelease(
    Effect.sync(() => new Database(filename)),
    (db) => Effect.sync(() => db.close())
  )

describe("SQLite store", () => {
  it.scopedLive("uses a WAL file, creating its directory, with the configured page size", () =>
    Effect.gen(function* () {
      const filename = path.join(yield* tempDir, "a", "b", "events.db")
      const store = yield* SqliteStore.make({ filename, pageSize: 8192, synchronous: "full" })
      yield* store.appendAll(range("ses_a", 1, 2))
      const db = yield* rawConnection(filename)
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal")
      expect(db.pragma("page_size", { simple: true })).toBe(8192)
    }))

  it.scopedLive("rejects a page size SQLite cannot use", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      const error = yield* Effect.flip(SqliteStore.make({ filename, pageSize: 1000 }))
      expect(error).toMatchObject({ _tag: "StoreFailure", operation: "open" })
      expect(error.reason).toContain("pageSize 1000")
    }))

  it.scopedLive("runs migrations once: reopening the file works and keeps the data", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      yield* Effect.scoped(Effect.flatMap(SqliteStore.make({ filename }), (store) => store.appendAll(range("ses_a", 1, 3))))
      const store = yield* SqliteStore.make({ filename })
      expect(yield* replayAll(store, "ses_a")).toEqual(range("ses_a", 1, 3))
      const db = yield* rawConnection(filename)
      const migrations = db.prepare("SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id").all()
      expect(migrations).toEqual([
        { migration_id: 1, name: "create_sessions" },
        { migration_id: 2, name: "create_events" },
        { migration_id: 3, name: "session_listing" },
        { migration_id: 4, name: "create_turn_leases" },
        { migration_id: 5, name: "session_parent" },
        { migration_id: 6, name: "session_last_stop" }
      ])
    }))

  it.scopedLive("migration 6 fills in each session's last stop reason from the logs written before it", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      yield* Effect.scoped(
        Effect.flatMap(SqliteStore.make({ filename }), (store) =>
          Effect.all([
            store.appendAll([...range("ses_failed", 1, 1), turnStarted("ses_failed", 2, "turn_1"), turnFailed("ses_failed", 3, "turn_1")]),
            store.appendAll([...range("ses_fine", 1, 1), turnFailed("ses_fine", 2, "turn_1"), turnStarted("ses_fine", 3, "turn_2"), turnCompleted("ses_fine", 4, "turn_2")]),
            store.appendAll(range("ses_new", 1, 2))
          ])
        )
      )
      // The database as the version before this migration left it.
      const db = yield* rawConnection(filename)
      db.exec("ALTER TABLE sessions DROP COLUMN last_stop; DELETE FROM effect_sql_migrations WHERE migration_id = 6")
      const store = yield* SqliteStore.make({ filename })
      const list = yield* store.listSessions
      expect(Object.fromEntries(list.map((s) => [s.sessionId, s.lastStopReason]))).toEqual({ ses_failed: "error", ses_fine: "final", ses_new: undefined })
    }))

  it.scopedLive("closes both connections with its scope", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      yield* Effect.scoped(Effect.flatMap(SqliteStore.make({ filename }), (store) => store.appendAll(range("ses_a", 1, 3))))
      // SQLite removes the WAL when the last connection to the file closes cleanly.
      expect(fs.existsSync(`${filename}-wal`)).toBe(false)
    }))

  it.scopedLive("a second instance appending makes the first one's stale append a conflict, its next one fine", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      const first = yield* SqliteStore.make({ filename })
      const second = yield* SqliteStore.make({ filename })
      yield* first.appendAll(range("ses_a", 1, 3))
      yield* second.append(delta("ses_a", 4))
      // `first` still believes 3 is the last sequence: the primary key says otherwise.
      expect(yield* Effect.flip(first.append(delta("ses_a", 4, "stale")))).toMatchObject({
        _tag: "SequenceConflict",
        expected: 5,
        actual: 4
      })
      yield* first.append(delta("ses_a", 5))
      // Behind again, but this time with the right next sequence: it is accepted.
      yield* second.append(delta("ses_a", 6))
      yield* first.append(delta("ses_a", 7))
      expect(yield* first.head("ses_a")).toEqual(Option.some(7))
      expect(yield* replayAll(second, "ses_a")).toEqual(range("ses_a", 1, 7))
      // A stale first event of a session hits the sessions table's key the same way.
      yield* second.appendAll(range("ses_b", 1, 2))
      expect(yield* Effect.flip(first.appendAll(range("ses_b", 1, 1)))).toMatchObject({
        _tag: "SequenceConflict",
        expected: 3,
        actual: 1
      })
    }))

  it.scopedLive("a row that is not valid JSON fails replay with a decode error naming it", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      const store = yield* SqliteStore.make({ filename })
      yield* store.appendAll(range("ses_a", 1, 4))
      const db = yield* rawConnection(filename)
      db.prepare("UPDATE events SET event = ? WHERE session_id = ? AND sequence = ?").run("{broken", "ses_a", 3)
      const { seen, error } = yield* replayUntilFailure(store, "ses_a")
      expect(seen).toEqual([1, 2])
      expect(error).toMatchObject({ _tag: "EventDecodeError", problem: "malformed_json" })
      expect(error.message).toContain("session ses_a sequence 3")
    }))

  it.scopedLive("a row holding another event than its key says is a decode error", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      const store = yield* SqliteStore.make({ filename })
      yield* store.appendAll(range("ses_a", 1, 3))
      const db = yield* rawConnection(filename)
      db.prepare("UPDATE events SET event = ? WHERE session_id = ? AND sequence = ?").run(
        JSON.stringify(delta("ses_a", 9)),
        "ses_a",
        2
      )
      const { seen, error } = yield* replayUntilFailure(store, "ses_a")
      expect(seen).toEqual([1])
      expect(error).toMatchObject({ _tag: "EventDecodeError", problem: "invalid_payload" })
      expect(error.message).toContain("sequence 9")
    }))

  it.scopedLive("a row with an unknown event type is a decode error naming the type", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      const store = yield* SqliteStore.make({ filename })
      yield* store.appendAll(range("ses_a", 1, 2))
      const db = yield* rawConnection(filename)
      db.prepare("UPDATE events SET event = ? WHERE session_id = ? AND sequence = ?").run(
        JSON.stringify({ ...delta("ses_a", 2), type: "model.teleported" }),
        "ses_a",
        2
      )
      const { error } = yield* replayUntilFailure(store, "ses_a")
      expect(error).toMatchObject({ _tag: "EventDecodeError", problem: "unknown_type", eventType: "model.teleported" })
    }))

  it.scopedLive("needs a real file: two connections share it", () =>
    Effect.gen(function* () {
      for (const filename of [":memory:", ""]) {
        const error = yield* Effect.flip(SqliteStore.make({ filename }))
        expect(error).toMatchObject({ _tag: "StoreFailure", operation: "open" })
      }
    }))

  it.scopedLive("an unusable file is a StoreFailure, not a defect", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      fs.writeFileSync(filename, "this is not a database, it is a text file long enough to have a header".repeat(20))
      const error = yield* Effect.flip(SqliteStore.make({ filename }))
      expect(error._tag).toBe("StoreFailure")
    }))
})
