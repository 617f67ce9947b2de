import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { MemoryNotFound, MemoryStore } from "../../services/MemoryStore.js"

const notFound = (id: string) => new MemoryNotFound({ id, message: `no memory store here: ${id} is not in one` })

/**
 * A MemoryStore that keeps nothing: a proposed candidate stays in the session's log only (there
 * is no review queue to put it in), and no approved memory enters the context.
 */
export const noMemoryStore: Layer.Layer<MemoryStore> = Layer.succeed(
  MemoryStore,
  MemoryStore.of({
    propose: () => Effect.void,
    candidate: notFound,
    pending: Effect.succeed([]),
    approve: notFound,
    reject: notFound,
    forWorkspace: () => Effect.succeed([]),
    all: Effect.succeed([]),
    remove: notFound
  })
)
