import { Effect, Layer, Stream } from "effect"
import { EventStore } from "../../src/services/EventStore.js"

/**
 * Wraps a store so every call yields to other fibers, as a store doing real I/O would: it
 * lets commits land in the middle of a reader's replay, the race subscribe must survive.
 */
export const yieldingStore = <E>(inner: Layer.Layer<EventStore, E>) =>
  Layer.effect(
    EventStore,
    Effect.map(EventStore, (store) =>
      EventStore.of({
        ...store,
        append: (event) => Effect.zipRight(Effect.yieldNow(), store.append(event)),
        appendAll: (events) => Effect.zipRight(Effect.yieldNow(), store.appendAll(events)),
        head: (sessionId) => Effect.zipRight(Effect.yieldNow(), store.head(sessionId)),
        replay: (sessionId, after) =>
          Stream.fromEffect(Effect.repeatN(Effect.yieldNow(), 4)).pipe(
            Stream.drain,
            Stream.concat(store.replay(sessionId, after).pipe(Stream.rechunk(1), Stream.tap(() => Effect.yieldNow())))
          )
      })
    )
  ).pipe(Layer.provide(inner))
