import { Effect, Layer, type Scope } from "effect"
import { EventStore } from "../../src/services/EventStore.js"
import { freshLayer, jsonl, memory, sqlite, type StoreSubject } from "../layers/event-store/stores.js"

export interface StoreCase {
  readonly name: string
  /** A fresh, empty store each call. */
  readonly fresh: () => Layer.Layer<EventStore, unknown>
  /** A fresh place to store into; each `reopen` is a new store instance over the same data (a restart). */
  readonly location: Effect.Effect<{ readonly reopen: () => Layer.Layer<EventStore, unknown> }, never, Scope.Scope>
}

const caseOf = (subject: StoreSubject): StoreCase => ({
  name: subject.name,
  fresh: () => freshLayer(subject),
  location: Effect.map(subject.location, (location) => ({ reopen: () => Layer.scoped(EventStore, location.open) }))
})

/** The engine and host suites run on each of these. */
export const storeCases: ReadonlyArray<StoreCase> = [memory, sqlite, jsonl("fail")].map(caseOf)
