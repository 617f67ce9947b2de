import { Context, Effect, Layer, Ref } from "effect"
import { StoreFailure } from "../../src/domain/errors.js"
import { EventStore, type EventStoreShape } from "../../src/services/EventStore.js"

export interface FailingStoreControlShape {
  /** The next `n` calls of append or appendAll fail with StoreFailure and write nothing. */
  readonly failNextAppends: (n: number) => Effect.Effect<void>
  /** Injected failures not yet used. */
  readonly pendingFailures: Effect.Effect<number>
}

export class FailingStoreControl extends Context.Tag("test/FailingStoreControl")<
  FailingStoreControl,
  FailingStoreControlShape
>() {}

export const injectedFailure = new StoreFailure({ operation: "append", reason: "injected failure (test double)" })

/**
 * Wraps the EventStore it is given: reads pass through, appends fail while failures are
 * pending. Provides the wrapped store and its control.
 */
export const layer: Layer.Layer<EventStore | FailingStoreControl, never, EventStore> = Layer.effectContext(
  Effect.gen(function* () {
    const inner = yield* EventStore
    const pending = yield* Ref.make(0)
    const takeFailure = Ref.modify(pending, (n) => (n > 0 ? [true, n - 1] : [false, 0]))
    const guard = <E>(append: Effect.Effect<void, E>): Effect.Effect<void, E | StoreFailure> =>
      Effect.flatMap(takeFailure, (fail): Effect.Effect<void, E | StoreFailure> => (fail ? Effect.fail(injectedFailure) : append))
    const store: EventStoreShape = {
      ...inner,
      append: (event) => guard(inner.append(event)),
      appendAll: (events) => guard(inner.appendAll(events))
    }
    const control: FailingStoreControlShape = {
      failNextAppends: (n) => Ref.update(pending, (current) => current + Math.max(0, n)),
      pendingFailures: Ref.get(pending)
    }
    return Context.make(EventStore, store).pipe(Context.add(FailingStoreControl, control))
  })
)

/** `layer` around a concrete store layer. */
export const around = <E, R>(store: Layer.Layer<EventStore, E, R>): Layer.Layer<EventStore | FailingStoreControl, E, R> =>
  layer.pipe(Layer.provide(store))
