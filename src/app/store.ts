import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { EventStore } from "../services/EventStore.js"
import { jsonlDirectory, sqliteFile, type StoreKind } from "./locations.js"

/**
 * The store a command uses. Each adapter is imported only when chosen, so a JSONL run never
 * loads the SQLite driver and the other way round.
 */
export const storeLayer = (kind: StoreKind, dataDir: string): Layer.Layer<EventStore, unknown> =>
  Layer.unwrapEffect(
    kind === "sqlite"
      ? Effect.promise(() => import("../layers/event-store/sqlite.js")).pipe(
          Effect.map((sqlite) => sqlite.layer({ filename: sqliteFile(dataDir) }))
        )
      : Effect.promise(() => import("../layers/event-store/jsonl.js")).pipe(
          Effect.map((jsonl) => jsonl.layer({ directory: jsonlDirectory(dataDir), truncatedLastLine: "skip" }))
        )
  )
