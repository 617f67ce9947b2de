import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { StoreFailure } from "../domain/errors.js"
import { claimDataDir as claimPrivateDataDir } from "../layers/private-files.js"
import type { EventStore } from "../services/EventStore.js"
import { jsonlDirectory, sqliteFile, type StoreKind } from "./locations.js"

/** The data directory is ours and holds transcripts: 0700, also if an earlier version made it looser; another's, or one others can write, is refused. */
const claimDataDir = (dataDir: string) =>
  Effect.mapError(claimPrivateDataDir(dataDir), (refused) => new StoreFailure({ operation: "open", reason: refused.message, cause: refused }))

/**
 * The store a command uses. Each adapter is imported only when chosen, so a JSONL run never
 * loads the SQLite driver and the other way round.
 */
export const storeLayer = (kind: StoreKind, dataDir: string): Layer.Layer<EventStore, StoreFailure> => {
  const adapter =
    kind === "sqlite"
      ? Effect.promise(() => import("../layers/event-store/sqlite.js")).pipe(
          Effect.map((sqlite) => sqlite.layer({ filename: sqliteFile(dataDir) }))
        )
      : Effect.promise(() => import("../layers/event-store/jsonl.js")).pipe(
          Effect.map((jsonl) => jsonl.layer({ directory: jsonlDirectory(dataDir), truncatedLastLine: "skip" }))
        )
  return Layer.unwrapEffect(Effect.zipRight(claimDataDir(dataDir), adapter))
}
