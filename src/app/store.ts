import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { messageOf } from "../domain/cause-message.js"
import { StoreFailure } from "../domain/errors.js"
import { claimPrivateDir } from "../layers/private-files.js"
import type { EventStore } from "../services/EventStore.js"
import { jsonlDirectory, sqliteFile, type StoreKind } from "./locations.js"

/** The data directory is ours and holds transcripts: 0700, also if an earlier version made it looser. */
const claimDataDir = (dataDir: string) =>
  Effect.try({
    try: () => claimPrivateDir(dataDir),
    catch: (error) =>
      new StoreFailure({ operation: "open", reason: `${dataDir}: cannot be made private (${messageOf(error)})`, cause: error })
  })

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
