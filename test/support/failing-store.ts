import { Context, Effect, Layer, Ref } from "effect"
import { StoreFailure } from "../../src/domain/errors.js"
import { EventStore, type EventStoreShape } from "../../src/services/EventStore.js"

export interface FailingStoreControlShape {
  /** The next `n` calls of append or appendAll fail with StoreFailure and write nothing. */
  readonly failNextAppends: (n: number) => Effect.Effect<void>
  /**
   * The next `skip` calls succeed, then `n` fail: a failure at a chosen point of a turn that
   * does not depend on how fast the turn's consumer reads.
   */
  readonly failAppendsAfter: (skip: number, n: number) => Effect.Effect<void>
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
    const pending = yield* Ref.make({ skip: 0, fail: 0 })
    const takeFailure = Ref.modify(pending, (p): readonly [boolean, { skip: number; fail: number }] => {
      if (p.skip > 0) return [false, { ...p, skip: p.skip - 1 }]
      return p.fail > 0 ? [true, { skip: 0, fail: p.fail - 1 }] : [false, p]
    })
    const guard = <E>(append: Effect.Effect<void, E>): Effect.Effect<void, E | StoreFailure> =>
      Effect.flatMap(takeFailure, (fail): Effect.Effect<void, E | StoreFailure> => (fail ? Effect.fail(injectedFailure) : append))
    const store: EventStoreShape = {
      ...inner,
      append: (event) => guard(inner.append(event)),
      appendAll: (events) => guard(inner.appendAll(events))
    }
    const control: FailingStoreControlShape = {
      failNextAppends: (n) => Ref.update(pending, (p) => ({ ...p, fail: p.fail + Math.max(0, n) })),
      failAppendsAfter: (skip, n) => Ref.set(pending, { skip: Math.max(0, skip), fail: Math.max(0, n) }),
      pendingFailures: Effect.map(Ref.get(pending), (p) => p.fail)
    }
    return Context.make(EventStore, store).pipe(Context.add(FailingStoreControl, control))
  })
)

/** `layer` around a concrete store layer. */
export const around = <E, R>(store: Layer.Layer<EventStore, E, R>): Layer.Layer<EventStore | FailingStoreControl, E, R> =>
  layer.pipe(Layer.provide(store))
