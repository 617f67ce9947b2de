import { PgClient } from "@effect/sql-pg"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Mailbox from "effect/Mailbox"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { randomUUID } from "node:crypto"
import type { StoreFailure } from "../../domain/errors.js"
import { storeFailure } from "./store-failure.js"

/** The channel every Postgres store notifies when it commits an append. */
export const APPEND_CHANNEL = "custom_agent_events"

/** A session's log grew: its last sequence is now `sequence`. A wake-up, not the events: re-read the store. */
export const AppendNotice = Schema.Struct({ sessionId: Schema.String, sequence: Schema.Int })
export type AppendNotice = typeof AppendNotice.Type

/** What a listener sends itself to learn that its LISTEN is in effect. */
const Probe = Schema.Struct({ probe: Schema.String })

const decodePayload = Schema.decodeUnknown(Schema.parseJson(Schema.Union(AppendNotice, Probe)))

/** The payload an append sends, in its transaction (Postgres caps a payload at 8000 bytes; this is far smaller). */
export const noticePayload = (notice: AppendNotice): string => JSON.stringify(notice)

/** How often a starting listener repeats its probe until it hears it. */
const PROBE_EVERY = "20 millis"

/**
 * Listens on the append channel for as long as the scope lasts, on the client's LISTEN
 * connection, and returns once the LISTEN is in effect: the listener has heard its own probe
 * (@effect/sql-pg's `listen` does not say when it is), so an append committed after this
 * returns is heard. Hence a subscriber may listen first, read the store, then re-read after
 * each notice, missing nothing. Probes are dropped; a payload that is neither a notice nor a
 * probe fails the stream (a foreign writer on our channel). Notices wait unbounded for the
 * consumer: each is small, and one dropped would leave a subscriber asleep behind the log.
 *
 * A limit of @effect/sql-pg 0.53: if the LISTEN connection breaks, its `listen` neither fails
 * nor ends (it ignores that connection's errors): the stream just goes quiet. A fan-out built
 * on this should also re-read the store now and then.
 */
export const listenAppends: Effect.Effect<
  Stream.Stream<AppendNotice, StoreFailure>,
  StoreFailure,
  PgClient.PgClient | Scope.Scope
> = Effect.gen(function* () {
  const sql = yield* PgClient.PgClient
  const probe = randomUUID()
  const listening = yield* Deferred.make<void, StoreFailure>()
  const notices = yield* Mailbox.make<AppendNotice, StoreFailure>()
  yield* sql.listen(APPEND_CHANNEL).pipe(
    Stream.mapEffect(decodePayload),
    Stream.mapError(storeFailure("listen")),
    Stream.runForEach((message) =>
      "probe" in message
        ? message.probe === probe
          ? Deferred.succeed(listening, undefined)
          : Effect.succeed(false)
        : notices.offer(message)
    ),
    Effect.tapError((error) => Deferred.fail(listening, error)),
    Mailbox.into(notices),
    Effect.forkScoped
  )
  // Not `sql.notify`: in @effect/sql-pg 0.53 it sends `NOTIFY channel, $1`, which Postgres
  // rejects (NOTIFY takes no parameters); pg_notify does.
  const notifyProbe = sql`SELECT pg_notify(${APPEND_CHANNEL}, ${JSON.stringify({ probe })})`
  const sendProbes = Effect.zipRight(notifyProbe, Effect.sleep(PROBE_EVERY)).pipe(
    Effect.forever,
    Effect.mapError(storeFailure("listen"))
  )
  yield* Effect.raceFirst(Deferred.await(listening), sendProbes)
  return Mailbox.toStream(notices)
})
