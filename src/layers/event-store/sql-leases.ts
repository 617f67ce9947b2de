import { type SqlClient, SqlSchema } from "@effect/sql"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { randomUUID } from "node:crypto"
import type { StoreFailure } from "../../domain/errors.js"
import type { TurnLeases } from "../../services/EventStore.js"
import { storeFailure } from "./store-failure.js"

/** How long a turn's lease lives without a renewal, by default: a killed process's turn shows as interrupted after this. */
export const DEFAULT_LEASE_TTL_MS = 10_000

export interface SqlLeaseOptions {
  /** How long a lease lives without a renewal; its holder renews it at a third of that. */
  readonly ttlMs: number
  /**
   * The database's clock in milliseconds since the epoch, as an SQL expression of its dialect.
   * Every expiry is set and compared by the database's clock, so holders on several machines
   * (Postgres) need not agree on the time.
   */
  readonly nowMs: string
}

const SessionRow = Schema.Struct({ session_id: Schema.String })

/** A lease as another holder has it: `expires_at` is a bigint (Postgres hands those over as text), `remaining` its milliseconds left. */
const LeaseRow = Schema.Struct({
  owner: Schema.String,
  expires_at: Schema.Union(Schema.Number, Schema.NumberFromString),
  remaining: Schema.Number
})

/**
 * Leases as rows of `turn_leases` (session id, owner, expiry), shared by every process on the
 * database: taking one is an upsert that only replaces an expired row, so exactly one holder
 * wins; the holder renews it while its scope lasts and deletes it at the end. A holder killed
 * mid-turn leaves its row to expire. Each hold is its own owner, so two holders in one process
 * exclude each other as two processes do.
 */
export const makeSqlLeases = (sql: SqlClient.SqlClient, options: SqlLeaseOptions): TurnLeases => {
  const now = sql.literal(options.nowMs)
  const ttl = options.ttlMs
  const owned = SqlSchema.findAll({
    Request: Schema.Struct({ sessionId: Schema.String, owner: Schema.String }),
    Result: SessionRow,
    execute: ({ sessionId, owner }) => sql`
      INSERT INTO turn_leases (session_id, owner, expires_at) VALUES (${sessionId}, ${owner}, ${now} + ${ttl})
      ON CONFLICT (session_id) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
      WHERE turn_leases.expires_at <= ${now}
      RETURNING session_id`
  })
  const renewed = SqlSchema.findAll({
    Request: Schema.Struct({ sessionId: Schema.String, owner: Schema.String }),
    Result: SessionRow,
    execute: ({ sessionId, owner }) => sql`
      UPDATE turn_leases SET expires_at = ${now} + ${ttl}
      WHERE session_id = ${sessionId} AND owner = ${owner}
      RETURNING session_id`
  })
  const leaseOf = SqlSchema.findOne({
    Request: Schema.String,
    Result: LeaseRow,
    execute: (sessionId) => sql`
      SELECT owner, expires_at, CAST(expires_at - ${now} AS INTEGER) AS remaining FROM turn_leases WHERE session_id = ${sessionId}`
  })
  const liveRows = SqlSchema.findAll({
    Request: Schema.Void,
    Result: SessionRow,
    execute: () => sql`SELECT session_id FROM turn_leases WHERE expires_at > ${now}`
  })

  const take = (sessionId: string, owner: string) =>
    Effect.acquireRelease(
      owned({ sessionId, owner }).pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.mapError(storeFailure("take a turn lease"))
      ),
      (taken) =>
        taken
          ? sql`DELETE FROM turn_leases WHERE session_id = ${sessionId} AND owner = ${owner}`.pipe(
              Effect.catchAll((error) => Effect.logWarning(`could not release the turn lease of ${sessionId}; it expires by itself`, error))
            )
          : Effect.void
    )

  /** Renews at a third of the expiry while it is ours; a failed renewal is tried again at the next one. */
  const keepRenewing = (sessionId: string, owner: string) =>
    renewed({ sessionId, owner }).pipe(
      Effect.map((rows) => rows.length > 0),
      Effect.catchAll((error) => Effect.as(Effect.logWarning(`could not renew the turn lease of ${sessionId}`, error), true)),
      Effect.delay(Duration.millis(ttl / 3)),
      Effect.repeat({ while: (kept) => kept }),
      // Only after it expired unrenewed (this process stalled) and someone else took it.
      Effect.zipRight(Effect.logWarning(`the turn lease of ${sessionId} was taken over: this process stalled past its expiry`))
    )

  /** Beyond a renewal interval, so that a live holder has renewed by the next look. */
  const margin = ttl / 10

  /**
   * Watches the lease another holder has: a live one renews it within a third of the expiry
   * (then: false, without waiting out its expiry); a dead one does not, and its lease is taken
   * once it expired (one expiry at most after its last renewal).
   */
  const waitOut = (sessionId: string, owner: string): Effect.Effect<boolean, StoreFailure, Scope.Scope> =>
    Effect.gen(function* () {
      const seen = yield* Effect.mapError(leaseOf(sessionId), storeFailure("read a turn lease"))
      // Released meanwhile: one more try (someone else may have been quicker).
      if (Option.isNone(seen)) return yield* take(sessionId, owner)
      yield* Effect.sleep(Duration.millis(Math.min(Math.max(seen.value.remaining, 0), ttl / 3) + margin))
      if (yield* take(sessionId, owner)) return true
      const later = yield* Effect.mapError(leaseOf(sessionId), storeFailure("read a turn lease"))
      if (Option.isNone(later)) return yield* take(sessionId, owner)
      const live = later.value.owner !== seen.value.owner || later.value.expires_at !== seen.value.expires_at
      return live ? false : yield* waitOut(sessionId, owner)
    })

  return {
    hold: (sessionId, { waitForExpiry }) =>
      Effect.gen(function* () {
        const owner = randomUUID()
        const first = yield* take(sessionId, owner)
        const taken = first || !waitForExpiry ? first : yield* waitOut(sessionId, owner)
        // Interruptible even when held from an uninterruptible region (a commit): closing the scope must stop it.
        if (taken) yield* Effect.forkScoped(Effect.interruptible(keepRenewing(sessionId, owner)))
        return taken
      }),
    live: liveRows(undefined).pipe(
      Effect.map((rows) => new Set(rows.map((row) => row.session_id))),
      Effect.mapError(storeFailure("read the turn leases"))
    )
  }
}
