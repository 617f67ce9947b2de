import { Effect, Layer, type Scope } from "effect"
import * as path from "node:path"
import type { StoreFailure } from "../../../src/domain/errors.js"
import * as JsonlStore from "../../../src/layers/event-store/jsonl.js"
import * as MemoryStore from "../../../src/layers/event-store/memory.js"
import * as SqliteStore from "../../../src/layers/event-store/sqlite.js"
import { EventStore, type EventStoreShape } from "../../../src/services/EventStore.js"
import { tempDir } from "./fixtures.js"

/** Where a store keeps its data; every `open` is a new store instance over the same data. */
export interface StoreLocation {
  readonly open: Effect.Effect<EventStoreShape, StoreFailure, Scope.Scope>
}

export interface StoreSubject {
  readonly name: string
  /** A fresh, empty location, removed with the scope. */
  readonly location: Effect.Effect<StoreLocation, never, Scope.Scope>
}

export const memory: StoreSubject = {
  name: "memory",
  // Memory has no storage outside the instance: "reopening" gives the same instance back.
  location: Effect.map(MemoryStore.make, (store) => ({ open: Effect.succeed(store) }))
}

export const sqlite: StoreSubject = {
  name: "sqlite",
  location: Effect.map(tempDir, (dir) => ({ open: SqliteStore.make({ filename: path.join(dir, "events.db") }) }))
}

export const jsonl = (truncatedLastLine: "skip" | "fail"): StoreSubject => ({
  name: `jsonl (${truncatedLastLine})`,
  location: Effect.map(tempDir, (dir) => ({ open: JsonlStore.make({ directory: dir, truncatedLastLine }) }))
})

export const subjects: ReadonlyArray<StoreSubject> = [memory, sqlite, jsonl("skip"), jsonl("fail")]

/** A fresh, empty store as a layer (its files removed when the layer is released). */
export const freshLayer = (subject: StoreSubject): Layer.Layer<EventStore, StoreFailure> =>
  Layer.scoped(EventStore, Effect.flatMap(subject.location, (location) => location.open))
