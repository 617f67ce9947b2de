import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import type * as Scope from "effect/Scope"
import type { HostFrame } from "../domain/host.js"
import { EventBus } from "../services/EventBus.js"

export interface Subscription {
  readonly frames: Mailbox.ReadonlyMailbox<HostFrame>
  /** Completes when the subscriber fell too far behind and was dropped. */
  readonly dropped: Deferred.Deferred<void>
}

interface Subscriber {
  // A Mailbox is cheaper per frame than a Queue (docs/performance.md); every event passes here.
  readonly queue: Mailbox.Mailbox<HostFrame>
  readonly dropped: Deferred.Deferred<void>
}

export interface FanoutOptions {
  /** Frames a subscriber may have waiting before it is dropped. */
  readonly bufferSize: number
}

/**
 * Per-session fan-out. Delivery never waits for a subscriber: each has a bounded buffer,
 * and one that fills it is dropped (it resumes from its last sequence), so a slow reader
 * never stalls the turn or the other readers.
 */
export interface FanoutShape {
  readonly subscribe: (sessionId: string) => Effect.Effect<Subscription, never, Scope.Scope>
  readonly deliver: (sessionId: string, frame: HostFrame) => Effect.Effect<void>
  /**
   * Hears every session's frames as they are delivered, for as long as the scope lasts (the
   * session list's watch). Called synchronously on the commit path: it must only take note.
   */
  readonly observe: (observer: (sessionId: string, frame: HostFrame) => void) => Effect.Effect<void, never, Scope.Scope>
  /** How many clients follow the session now (its subscribers): none means no terminal or page shows its questions. */
  readonly followers: (sessionId: string) => Effect.Effect<number>
}

export class Fanout extends Context.Tag("custom-agent/host/Fanout")<Fanout, FanoutShape>() {}

export const make = (options: FanoutOptions) =>
  Effect.sync((): FanoutShape => {
    const subscribers = new Map<string, Set<Subscriber>>()
    const observers = new Set<(sessionId: string, frame: HostFrame) => void>()

    const remove = (sessionId: string, subscriber: Subscriber) => {
      const set = subscribers.get(sessionId)
      set?.delete(subscriber)
      if (set?.size === 0) subscribers.delete(sessionId)
    }

    const subscribe = (sessionId: string) =>
      Effect.acquireRelease(
        Effect.gen(function* () {
          const subscriber: Subscriber = {
            queue: yield* Mailbox.make<HostFrame>({ capacity: options.bufferSize, strategy: "dropping" }),
            dropped: yield* Deferred.make<void>()
          }
          const set = subscribers.get(sessionId) ?? new Set()
          set.add(subscriber)
          subscribers.set(sessionId, set)
          return subscriber
        }),
        (subscriber) => Effect.zipRight(Effect.sync(() => remove(sessionId, subscriber)), subscriber.queue.shutdown)
      ).pipe(Effect.map((s): Subscription => ({ frames: s.queue, dropped: s.dropped })))

    // Synchronous: every committed event passes here, and an offer to a dropping queue never waits.
    const deliver = (sessionId: string, frame: HostFrame) =>
      Effect.sync(() => {
        for (const observer of observers) observer(sessionId, frame)
        const set = subscribers.get(sessionId)
        if (set === undefined) return
        for (const subscriber of [...set]) {
          if (subscriber.queue.unsafeOffer(frame)) continue
          remove(sessionId, subscriber)
          Deferred.unsafeDone(subscriber.dropped, Exit.void)
        }
      })

    const observe = (observer: (sessionId: string, frame: HostFrame) => void) =>
      Effect.acquireRelease(
        Effect.sync(() => observers.add(observer)),
        () => Effect.sync(() => observers.delete(observer))
      ).pipe(Effect.asVoid)

    const followers = (sessionId: string) => Effect.sync(() => subscribers.get(sessionId)?.size ?? 0)

    return { subscribe, deliver, observe, followers }
  })

export const layer = (options: FanoutOptions) => Layer.effect(Fanout, make(options))

/** The engine's EventBus: every committed event goes out as an `Event` frame, each change of work as a `Status` frame. */
export const eventBusLayer = Layer.effect(
  EventBus,
  Effect.map(Fanout, (fanout) =>
    EventBus.of({
      publish: (event) => fanout.deliver(event.sessionId, { _tag: "Event", event }),
      status: (sessionId, running) => fanout.deliver(sessionId, { _tag: "Status", running })
    })
  )
)
