import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as RcRef from "effect/RcRef"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { EngineError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { SessionListFrame, SessionListItem } from "../domain/host.js"
import { applyListingChange, headerOf, listingChange } from "../domain/session-listing.js"
import type { EventStoreShape, SessionSummary } from "../services/EventStore.js"
import type { FanoutShape } from "./fanout.js"
import { listItemOf, liveNow } from "./session-list.js"

export interface SessionWatchTimingShape {
  /** A session's changes within this interval make one `Updated` frame. */
  readonly coalesce: Duration.DurationInput
  /** How often the store's listing is read while someone watches: changes other processes make, leases that expired. */
  readonly poll: Duration.DurationInput
  /** How long a watcher's connection may stay silent before a `KeepAlive` frame. */
  readonly keepAlive: Duration.DurationInput
}

/** The session list watch's intervals; tests provide shorter ones. */
export class SessionWatchTiming extends Context.Reference<SessionWatchTiming>()("custom-agent/host/SessionWatchTiming", {
  defaultValue: (): SessionWatchTimingShape => ({ coalesce: "250 millis", poll: "2 seconds", keepAlive: "15 seconds" })
}) {}

export interface SessionWatchDeps {
  readonly store: EventStoreShape
  /** The sessions working in this process now. */
  readonly working: Effect.Effect<ReadonlySet<string>>
  /** The permission questions waiting on an answer in this process, by session. */
  readonly questions: Effect.Effect<ReadonlyMap<string, number>>
  readonly fanout: FanoutShape
  readonly timing: SessionWatchTimingShape
}

interface Watcher {
  /** Sessions whose line changed since this watcher last took them. */
  readonly pending: Set<string>
  /** Woken (at most one waiting wake-up) when `pending` grows. */
  readonly wake: Queue.Queue<void>
}

interface Hub {
  /** Each session's line as watchers were last told it; a session pending for a watcher and not here was deleted. */
  readonly items: ReadonlyMap<string, SessionListItem>
  readonly watchers: Set<Watcher>
  /** Drops a deleted session and tells every watcher. */
  readonly remove: (sessionId: string) => void
}

/** A session's summary after one of its events, as this process heard it; undefined when only the store can tell (not seen from its start). */
const summaryAfter = (known: SessionSummary | undefined, event: AgentEvent): SessionSummary | undefined => {
  if (known === undefined && event.sequence !== 1) return undefined
  if (known !== undefined && event.sequence <= known.lastSequence) return known
  return {
    ...applyListingChange(known ?? headerOf(event), listingChange([event])),
    sessionId: event.sessionId,
    createdAt: known?.createdAt ?? event.timestamp,
    updatedAt: event.timestamp,
    lastSequence: event.sequence
  }
}

const sameItem = (a: SessionListItem | undefined, b: SessionListItem) => a !== undefined && JSON.stringify(a) === JSON.stringify(b)

const newestFirst = (a: SessionListItem, b: SessionListItem) => b.updatedAt.localeCompare(a.updatedAt)

/**
 * The list as watchers see it, while anyone watches: the store's listing read once, then kept
 * by the events this process commits (heard through the fan-out) and by a read of the listing
 * every `poll` (what other processes did, leases that expired). Changed sessions are gathered
 * and handed to watchers once per `coalesce`. Its maps hold one entry per session of the store
 * and go when the last watcher leaves.
 */
const startHub = (deps: SessionWatchDeps): Effect.Effect<Hub, EngineError, Scope.Scope> =>
  Effect.gen(function* () {
    const { store, fanout, timing } = deps
    const summaries = new Map<string, SessionSummary>()
    const items = new Map<string, SessionListItem>()
    const dirty = new Set<string>()
    const watchers = new Set<Watcher>()
    /** Sessions a read of the store's listing has shown: one missing from a later read was deleted by another process. */
    const listed = new Set<string>()

    const remove = (sessionId: string) => {
      summaries.delete(sessionId)
      dirty.delete(sessionId)
      listed.delete(sessionId)
      if (!items.delete(sessionId)) return
      for (const watcher of watchers) {
        watcher.pending.add(sessionId)
        Queue.unsafeOffer(watcher.wake, undefined)
      }
    }

    // Heard before the first read, so nothing committed in between is missed.
    yield* fanout.observe((sessionId, frame) => {
      if (frame._tag === "Event") {
        const next = summaryAfter(summaries.get(sessionId), frame.event)
        if (next !== undefined) summaries.set(sessionId, next)
      }
      dirty.add(sessionId)
    })

    /** The store's listing, unless this process heard of a later event than the read saw. */
    const read = Effect.map(store.listSessions, (listing) => {
      const present = new Set<string>()
      for (const summary of listing) {
        present.add(summary.sessionId)
        listed.add(summary.sessionId)
        const known = summaries.get(summary.sessionId)
        if (known === undefined || known.lastSequence <= summary.lastSequence) summaries.set(summary.sessionId, summary)
      }
      // Only one an earlier read showed: a session created here after this read began is not in it yet.
      for (const sessionId of [...listed]) if (!present.has(sessionId)) remove(sessionId)
    })

    const publish = (sessionIds: Iterable<string>) =>
      Effect.map(liveNow(store, deps.working, deps.questions), (live) => {
        for (const sessionId of sessionIds) {
          const summary = summaries.get(sessionId)
          if (summary === undefined) continue
          const item = listItemOf(summary, live(sessionId))
          if (sameItem(items.get(sessionId), item)) continue
          items.set(sessionId, item)
          for (const watcher of watchers) {
            watcher.pending.add(sessionId)
            Queue.unsafeOffer(watcher.wake, undefined)
          }
        }
      })

    const flush = Effect.suspend(() => {
      if (dirty.size === 0) return Effect.void
      const sessionIds = [...dirty]
      dirty.clear()
      return publish(sessionIds)
    })

    yield* read
    yield* publish(summaries.keys())
    const warn = (what: string) => Effect.catchAll((error: EngineError) => Effect.logWarning(`session list: ${what} failed`, error))
    // Interruptible: the hub may be built in an uninterruptible region, and its end must stop them.
    yield* flush.pipe(warn("publishing changes"), Effect.delay(timing.coalesce), Effect.forever, Effect.interruptible, Effect.forkScoped)
    // Every session may have changed elsewhere (a lease expired, another process appended): all are looked at.
    const poll = Effect.tap(read, () => Effect.sync(() => summaries.forEach((_, sessionId) => dirty.add(sessionId))))
    yield* poll.pipe(warn("reading the store's listing"), Effect.delay(timing.poll), Effect.forever, Effect.interruptible, Effect.forkScoped)
    return { items, watchers, remove }
  })

export interface SessionWatchShape {
  /** The list now (`Snapshot`), then each session's line when it changed (`Updated`) or went (`Removed`), with `KeepAlive` frames between. */
  readonly watch: Stream.Stream<SessionListFrame, EngineError>
  /** A session this process deleted: watchers hear it now rather than at the next poll. */
  readonly forget: (sessionId: string) => Effect.Effect<void>
}

export const makeSessionWatch = (deps: SessionWatchDeps): Effect.Effect<SessionWatchShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    /** The hub while anyone watches (at most one). */
    const live = new Set<Hub>()
    const acquire = Effect.tap(startHub(deps), (hub) =>
      Effect.acquireRelease(
        Effect.sync(() => live.add(hub)),
        () => Effect.sync(() => live.delete(hub))
      )
    )
    const hubs = yield* RcRef.make({ acquire })
    const forget = (sessionId: string) => Effect.sync(() => live.forEach((hub) => hub.remove(sessionId)))
    const watch = Stream.unwrapScoped(
      Effect.gen(function* () {
        const hub = yield* RcRef.get(hubs)
        const watcher: Watcher = { pending: new Set(), wake: yield* Queue.sliding<void>(1) }
        // Registered before the snapshot is taken: a change in between comes again as an update, never not at all.
        yield* Effect.acquireRelease(
          Effect.sync(() => hub.watchers.add(watcher)),
          () => Effect.sync(() => hub.watchers.delete(watcher))
        )
        const snapshot: SessionListFrame = { _tag: "Snapshot", sessions: [...hub.items.values()].sort(newestFirst) }
        const takeUpdates = Effect.zipRight(
          Queue.take(watcher.wake),
          Effect.sync(() => {
            const sessionIds = [...watcher.pending]
            watcher.pending.clear()
            return Chunk.fromIterable(
              sessionIds.flatMap((sessionId): ReadonlyArray<SessionListFrame> => {
                const session = hub.items.get(sessionId)
                // Sessions are pending only when their line changed or went.
                return [session === undefined ? { _tag: "Removed", sessionId } : { _tag: "Updated", session }]
              })
            )
          })
        )
        const keepAlive: SessionListFrame = { _tag: "KeepAlive" }
        const keepAlives = Stream.repeatEffect(Effect.as(Effect.sleep(deps.timing.keepAlive), keepAlive))
        return Stream.make(snapshot).pipe(Stream.concat(Stream.merge(Stream.repeatEffectChunk(takeUpdates), keepAlives)))
      })
    )
      return { watch, forget }
  })
