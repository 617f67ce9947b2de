import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type FileAccess, FileAccessError, Files } from "../../services/ToolRouter.js"
import { describeFsError } from "./fs-errors.js"

/**
 * Files up to this size are read synchronously: on a local disk that takes microseconds,
 * while the promise API's four trips through the thread pool (open, stat, read, close) cost
 * about a millisecond on every read. Larger files keep the event loop free.
 */
const SYNC_READ_MAX_BYTES = 256 * 1024

const readError = (p: string) => (error: unknown) => new FileAccessError({ path: p, message: describeFsError("read", p, error) })

const smallFileSize = (p: string): number | undefined => {
  const stat = fsSync.statSync(p, { throwIfNoEntry: false })
  return stat !== undefined && stat.isFile() && stat.size <= SYNC_READ_MAX_BYTES ? stat.size : undefined
}

/** FileAccess on the local disk: UTF-8 text, parent directories created on write. */
export const LocalFileAccess: FileAccess = {
  readText: (p) =>
    Effect.suspend(() => {
      const size = Effect.try({ try: () => smallFileSize(p), catch: readError(p) })
      return Effect.flatMap(size, (small) =>
        small === undefined
          ? Effect.tryPromise({ try: (signal) => fs.readFile(p, { encoding: "utf8", signal }), catch: readError(p) })
          : Effect.try({ try: () => fsSync.readFileSync(p, "utf8"), catch: readError(p) })
      )
    }),
  writeText: (p, content) =>
    Effect.tryPromise({
      try: async () => {
        await fs.mkdir(path.dirname(p), { recursive: true })
        await fs.writeFile(p, content, "utf8")
      },
      catch: (error) => new FileAccessError({ path: p, message: describeFsError("write", p, error) })
    })
}

/** File tools on the local disk. */
export const LocalFilesLive = Layer.succeed(Files, LocalFileAccess)
