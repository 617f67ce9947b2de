import { Effect, Layer } from "effect"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type FileAccess, FileAccessError, Files } from "../../services/ToolRouter.js"
import { describeFsError } from "./fs-errors.js"

/** FileAccess on the local disk: UTF-8 text, parent directories created on write. */
export const LocalFileAccess: FileAccess = {
  readText: (p) =>
    Effect.tryPromise({
      try: (signal) => fs.readFile(p, { encoding: "utf8", signal }),
      catch: (error) => new FileAccessError({ path: p, message: describeFsError("read", p, error) })
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
