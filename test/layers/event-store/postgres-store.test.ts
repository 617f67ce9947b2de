import { SqlError } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Fiber, Option, Stream } from "effect"
import * as PostgresStore from "../../../src/layers/event-store/postgres.js"
import { connect, postgresAvailable, postgresSuite, serverForFile } from "../../support/postgres.js"
import { created, delta, range, replayAll, replayUntilFailure, turnCompleted, turnFailed, turnStarted } from "./fixtures.js"

const nameOf = (url: string) => new URL(url).pathname.slice(1)

// What the contract cannot show: several processes (here, store instances with their own
// connection pools) on one database, the notifications, and the failures of a real server.
describe.skipIf(!postgresAvailable)(postgresSuite("Postgres store, several instances"), () => {
  const server = serverForFile()
  const database = Effect.suspend(() => server().freshDatabase)

  it.scopedLive("two instances racing for the next sequence: one wins, the other gets a SequenceConflict, no gap", () =>
    Effect.gen(function* () {
      const url = yield* database
      const a = yield* PostgresStore.make({ url })
      const b = yield* PostgresStore.make({ url })
      yield* a.append(created("ses_a"))
      for (let round = 0; round < 30; round++) {
        const head = Option.getOrElse(yield* b.head("ses_a"), () => 0)
        // Batches of different lengths: the head shows which won, and that it won whole.
        const [fromA, fromB] = yield* Effect.all(
          [
            Effect.either(a.appendAll([delta("ses_a", head + 1, `a ${round}`), delta("ses_a", head + 2, `a ${round}`)])),
            Effect.either(b.append(delta("ses_a", head + 1, `b ${round}`)))
          ],
          { concurrency: "unbounded" }
        )
        const tail = Either.isRight(fromA) ? head + 2 : head + 1
        expect(yield* a.head("ses_a")).toEqual(Option.some(tail))
        const losers = [fromA, fromB].flatMap((result) => (Either.isLeft(result) ? [result.left] : []))
        expect(losers).toHaveLength(1)
        expect(losers[0]).toMatchObject({ _tag: "SequenceConflict", expected: tail + 1, actual: head + 1 })
      }
      const events = yield* replayAll(b, "ses_a")
      expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1))
    }))

  it.scopedLive("turn leases across instances, by the database's clock: a live holder is seen renewing; a dead one's lease is taken once expired", () =>
    Effect.gen(function* () {
      const url = yield* database
      const a = yield* PostgresStore.make({ url })
      const b = yield* PostgresStore.make({ url })
      expect(yield* a.leases.hold("ses_live", { waitForExpiry: false })).toBe(true)
      expect([...(yield* b.leases.live)]).toEqual(["ses_live"])
      // A live holder renews within a third of the expiry: the waiting hold gives up then.
      expect(yield* Effect.scoped(b.leases.hold("ses_live", { waitForExpiry: true }))).toBe(false)
      // What a killed runner leaves: its row, renewed for the last time just now.
      const sql = yield* connect(url)
      yield* sql`INSERT INTO turn_leases (session_id, owner, expires_at)
                 VALUES ('ses_dead', 'killed', CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT) + 300)`
      expect(yield* Effect.scoped(b.leases.hold("ses_dead", { waitForExpiry: false }))).toBe(false)
      expect(yield* Effect.scoped(b.leases.hold("ses_dead", { waitForExpiry: true }))).toBe(true)
      expect([...(yield* a.leases.live)]).toEqual(["ses_live"])
    }))

  it.scopedLive("instances migrating an empty database at the same instant all succeed", () =>
    Effect.gen(function* () {
      // Without the advisory lock, about a third of such starts died on a duplicate pg_type.
      for (let round = 0; round < 5; round++) {
        const url = yield* database
        yield* Effect.scoped(
          Effect.gen(function* () {
            const stores = yield* Effect.all(
              Array.from({ length: 4 }, () => PostgresStore.make({ url })),
              { concurrency: "unbounded" }
            )
            yield* stores[0]?.append(created("ses_a")) ?? Effect.die("no store")
            expect(yield* stores[3]?.head("ses_a") ?? Effect.die("no store")).toEqual(Option.some(1))
            const sql = yield* connect(url)
            // Running it again is a no-op.
            yield* PostgresStore.migrate.pipe(Effect.provideService(PgClient.PgClient, sql))
            expect(yield* sql`SELECT migration_id, name FROM effect_sql_migrations ORDER BY migration_id`).toEqual([
              { migration_id: 1, name: "create_sessions" },
              { migration_id: 2, name: "create_events" },
              { migration_id: 3, name: "session_listing" },
              { migration_id: 4, name: "create_turn_leases" },
              { migration_id: 5, name: "session_parent" },
              { migration_id: 6, name: "session_last_stop" }
            ])
          })
        )
      }
    }))

  it.scopedLive("migration 6 fills in each session's last stop reason from the logs written before it", () =>
    Effect.gen(function* () {
      const url = yield* database
      yield* Effect.scoped(
        Effect.flatMap(PostgresStore.make({ url }), (store) =>
          Effect.all([
            store.appendAll([...range("ses_failed", 1, 1), turnStarted("ses_failed", 2, "turn_1"), turnFailed("ses_failed", 3, "turn_1")]),
            store.appendAll([...range("ses_fine", 1, 1), turnStarted("ses_fine", 2, "turn_1"), turnCompleted("ses_fine", 3, "turn_1")]),
            store.appendAll(range("ses_new", 1, 2))
          ])
        )
      )
      // The database as the version before this migration left it.
      const sql = yield* connect(url)
      yield* sql`ALTER TABLE sessions DROP COLUMN last_stop`
      yield* sql`DELETE FROM effect_sql_migrations WHERE migration_id = 6`
      const store = yield* PostgresStore.make({ url })
      const list = yield* store.listSessions
      expect(Object.fromEntries(list.map((s) => [s.sessionId, s.lastStopReason]))).toEqual({ ses_failed: "error", ses_fine: "final", ses_new: undefined })
    }))

  it.scopedLive("a committed append is heard by a listener on another connection; a refused one is not", () =>
    Effect.gen(function* () {
      const url = yield* database
      const store = yield* PostgresStore.make({ url })
      const listener = yield* connect(url)
      const notices = yield* PostgresStore.listenAppends.pipe(Effect.provideService(PgClient.PgClient, listener))
      const heard = yield* Effect.fork(Stream.runCollect(Stream.take(notices, 3)))
      yield* store.append(created("ses_a"))
      yield* store.appendAll(range("ses_a", 2, 4))
      expect((yield* Effect.flip(store.append(delta("ses_a", 3))))._tag).toBe("SequenceConflict")
      yield* store.append(created("ses_b"))
      const got = yield* Fiber.join(heard).pipe(Effect.timeout("10 seconds"))
      expect(Chunk.toArray(got)).toEqual([
        { sessionId: "ses_a", sequence: 1 },
        { sessionId: "ses_a", sequence: 4 },
        { sessionId: "ses_b", sequence: 1 }
      ])
    }))

  it.scopedLive("a database that refuses the connection is a StoreFailure carrying the driver's error", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(PostgresStore.make({ url: server().url("no_such_database") }))
      expect(error).toMatchObject({ _tag: "StoreFailure", operation: "open" })
      expect(error.cause).toBeInstanceOf(SqlError.SqlError)
      expect(error.reason).toContain("no_such_database")
    }))

  it.scopedLive("losing the server mid-use fails each operation with a StoreFailure, not a defect", () =>
    Effect.gen(function* () {
      const url = yield* database
      const store = yield* PostgresStore.make({ url })
      yield* store.appendAll(range("ses_a", 1, 3))
      // Close the database to new connections and cut the store's open ones.
      const admin = yield* connect(server().url("postgres"))
      yield* admin.unsafe(`ALTER DATABASE ${nameOf(url)} ALLOW_CONNECTIONS false`)
      yield* admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${nameOf(url)}`
      const failures = [
        yield* Effect.flip(store.append(delta("ses_a", 4))),
        yield* Effect.flip(store.head("ses_a")),
        yield* Effect.flip(store.listSessions),
        yield* Effect.flip(Stream.runDrain(store.replay("ses_a")))
      ]
      expect(failures.map((f) => [f._tag, "operation" in f ? f.operation : undefined])).toEqual([
        ["StoreFailure", "append"],
        ["StoreFailure", "head"],
        ["StoreFailure", "listSessions"],
        ["StoreFailure", "replay"]
      ])
      for (const failure of failures) expect("cause" in failure && failure.cause).toBeInstanceOf(SqlError.SqlError)
    }))

  it.scopedLive("a stored row that is not an event fails replay with the decode error SQLite gives", () =>
    Effect.gen(function* () {
      const url = yield* database
      const store = yield* PostgresStore.make({ url })
      yield* store.appendAll(range("ses_a", 1, 4))
      const sql = yield* connect(url)
      yield* sql`UPDATE events SET event = ${"{broken"} WHERE session_id = ${"ses_a"} AND sequence = ${3}`
      const { seen, error } = yield* replayUntilFailure(store, "ses_a")
      expect(seen).toEqual([1, 2])
      expect(error).toMatchObject({ _tag: "EventDecodeError", problem: "malformed_json" })
      expect(error.message).toContain("session ses_a sequence 3")
    }))
})
