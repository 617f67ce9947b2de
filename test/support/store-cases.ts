import type { Layer } from "effect"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { EventStore } from "../../src/services/EventStore.js"

export interface StoreCase {
  readonly name: string
  /** A fresh, empty store each call. */
  readonly fresh: () => Layer.Layer<EventStore, unknown>
}

export const storeCases: ReadonlyArray<StoreCase> = [{ name: "memory", fresh: () => MemoryStore.layer }]
