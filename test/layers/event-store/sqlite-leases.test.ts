import { describe, expect, it } from "@effect/vitest"
import Database from "better-sqlite3"
import { Effect, Exit, Scope } from "effect"
import * as path from "node:path"
import * as SqliteStore from "../../../src/layers/event-store/sqlite.js"
import { created, replayAll, tempDir, turnStarted } from "./fixtures.js"

const dbFile = Effect.map(tempDir, (dir) => path.join(dir, "events.db"))

/** A plain connection to the file, as another process has. */
const rawConnection = (filename: string) =>
  Effect.acquireRelease(
    Effect.sync(() => new Database(filename)),
    (db) => Effect.sync(() => db.close())
  )

const NOW_MS = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"

describe("SQLite store: listing columns and turn leases", () => {
  it.scopedLive("a file from before the listing columns gets them on open, with the turn a crash left open found", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      yield* Effect.scoped(Effect.flatMap(SqliteStore.make({ filename }), (store) => store.append(created("ses_old", { title: "Old" }))))
      // Back to the schema of the first two migrations, with a log whose turn never completed.
      const db = yield* rawConnection(filename)
      db.exec(`
        ALTER TABLE sessions DROP COLUMN archived;
        ALTER TABLE sessions DROP COLUMN open_turn;
        ALTER TABLE sessions DROP COLUMN parent_session_id;
        ALTER TABLE sessions DROP COLUMN last_stop;
        DROP TABLE turn_leases;
        DELETE FROM effect_sql_migrations WHERE migration_id > 2;`)
      const started = turnStarted("ses_old", 2, "turn_left")
      db.prepare("INSERT INTO events (session_id, sequence, type, turn_id, timestamp, event) VALUES (?, ?, ?, ?, ?, ?)").run(
        "ses_old",
        2,
        started.type,
        "turn_left",
        started.timestamp,
        JSON.stringify(started)
      )
      const store = yield* SqliteStore.make({ filename })
      expect(yield* store.listSessions).toEqual([
        {
          sessionId: "ses_old",
          createdAt: created("ses_old").timestamp,
          updatedAt: started.timestamp,
          lastSequence: 2,
          cwd: "/work/ses_old",
          client: "test",
          title: "Old",
          openTurnId: "turn_left"
        }
      ])
      expect(yield* replayAll(store, "ses_old")).toEqual([created("ses_old", { title: "Old" }), started])
    }))

  it.scopedLive("two instances on one file (two processes): one holder at a time, the other takes it once released", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      const first = yield* SqliteStore.make({ filename })
      const second = yield* SqliteStore.make({ filename })
      const held = yield* Scope.make()
      expect(yield* Scope.extend(first.leases.hold("ses_a", { waitForExpiry: false }), held)).toBe(true)
      expect(yield* Effect.scoped(second.leases.hold("ses_a", { waitForExpiry: false }))).toBe(false)
      expect([...(yield* second.leases.live)]).toEqual(["ses_a"])
      yield* Scope.close(held, Exit.void)
      expect([...(yield* second.leases.live)]).toEqual([])
      expect(yield* Effect.scoped(second.leases.hold("ses_a", { waitForExpiry: false }))).toBe(true)
    }))

  it.scopedLive("a live holder renews its lease past its expiry", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      const holder = yield* SqliteStore.make({ filename, leaseTtlMs: 300 })
      const other = yield* SqliteStore.make({ filename, leaseTtlMs: 300 })
      expect(yield* holder.leases.hold("ses_a", { waitForExpiry: false })).toBe(true)
      yield* Effect.sleep("900 millis")
      expect([...(yield* other.leases.live)]).toEqual(["ses_a"])
      expect(yield* Effect.scoped(other.leases.hold("ses_a", { waitForExpiry: false }))).toBe(false)
    }))

  it.scopedLive("a waiting hold sees a live holder renew and gives up then, without waiting out the expiry", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      const holder = yield* SqliteStore.make({ filename, leaseTtlMs: 3000 })
      const other = yield* SqliteStore.make({ filename, leaseTtlMs: 3000 })
      expect(yield* holder.leases.hold("ses_a", { waitForExpiry: false })).toBe(true)
      const start = Date.now()
      expect(yield* Effect.scoped(other.leases.hold("ses_a", { waitForExpiry: true }))).toBe(false)
      // One renewal interval (a third of the expiry) and a margin, not the expiry.
      expect(Date.now() - start).toBeLessThan(2000)
    }))

  it.scopedLive("a lease nobody renews (its process was killed) stops being live at its expiry; a waiting hold takes it then", () =>
    Effect.gen(function* () {
      const filename = yield* dbFile
      const store = yield* SqliteStore.make({ filename, leaseTtlMs: 400 })
      // What a killed holder leaves: its row, renewed for the last time just now.
      const db = yield* rawConnection(filename)
      db.prepare(`INSERT INTO turn_leases (session_id, owner, expires_at) VALUES ('ses_a', 'killed', ${NOW_MS} + 300)`).run()
      expect([...(yield* store.leases.live)]).toEqual(["ses_a"])
      expect(yield* Effect.scoped(store.leases.hold("ses_a", { waitForExpiry: false }))).toBe(false)
      const start = Date.now()
      expect(yield* Effect.scoped(store.leases.hold("ses_a", { waitForExpiry: true }))).toBe(true)
      expect(Date.now() - start).toBeGreaterThanOrEqual(250)
      // Released with its scope: nothing is live.
      expect([...(yield* store.leases.live)]).toEqual([])
    }))
})
