import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fsSync from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { type FileAccess, FileAccessError, Files } from "../../services/ToolRouter.js"
import { describeFsError } from "./fs-errors.js"
import { MovedError, openJudgedForRead, openJudgedForWrite } from "./judged-open.js"

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

const accessError = (verb: "read" | "write", p: string) => (error: unknown) =>
  new FileAccessError({ path: p, message: error instanceof MovedError ? error.message : describeFsError(verb, p, error), cause: error })

/** The judged file's text, read from the descriptor that was checked to be it. */
const readJudged = (p: string, judged: string): Effect.Effect<string, FileAccessError> =>
  Effect.acquireUseRelease(
    Effect.try({ try: () => openJudgedForRead(p, judged), catch: accessError("read", p) }),
    (fd) =>
      Effect.flatMap(
        Effect.try({ try: () => fsSync.fstatSync(fd), catch: accessError("read", p) }),
        (stat): Effect.Effect<string, FileAccessError> =>
          !stat.isFile()
            ? Effect.fail(new FileAccessError({ path: p, message: `cannot read ${p}: it is not a regular file` }))
            : stat.size <= SYNC_READ_MAX_BYTES
              ? Effect.try({ try: () => fsSync.readFileSync(fd, "utf8"), catch: accessError("read", p) })
              : Effect.async<string, FileAccessError>((resume) => {
                  fsSync.readFile(fd, "utf8", (error, text) => resume(error === null ? Effect.succeed(text) : Effect.fail(accessError("read", p)(error))))
                })
      ),
    (fd) => Effect.sync(() => fsSync.closeSync(fd))
  )

/** Writes the judged file through the descriptor that was checked to be it. */
const writeJudged = (p: string, content: string, judged: string): Effect.Effect<void, FileAccessError> =>
  Effect.tryPromise({ try: () => fs.mkdir(path.dirname(p), { recursive: true }), catch: accessError("write", p) }).pipe(
    Effect.zipRight(
      Effect.try({
        try: () => {
          const fd = openJudgedForWrite(p, judged)
          try {
            fsSync.ftruncateSync(fd, 0)
            fsSync.writeFileSync(fd, content, "utf8")
          } finally {
            fsSync.closeSync(fd)
          }
        },
        catch: accessError("write", p)
      })
    )
  )

/** FileAccess on the local disk: UTF-8 text, parent directories created on write. */
export const LocalFileAccess: FileAccess = {
  readText: (p, judged) =>
    judged !== undefined
      ? readJudged(p, judged)
      : Effect.suspend(() => {
          const size = Effect.try({ try: () => smallFileSize(p), catch: readError(p) })
          return Effect.flatMap(size, (small) =>
            small === undefined
              ? Effect.tryPromise({ try: (signal) => fs.readFile(p, { encoding: "utf8", signal }), catch: readError(p) })
              : Effect.try({ try: () => fsSync.readFileSync(p, "utf8"), catch: readError(p) })
          )
        }),
  writeText: (p, content, judged) =>
    judged !== undefined
      ? writeJudged(p, content, judged)
      : Effect.tryPromise({
          try: async () => {
            await fs.mkdir(path.dirname(p), { recursive: true })
            await fs.writeFile(p, content, "utf8")
          },
          catch: (error) => new FileAccessError({ path: p, message: describeFsError("write", p, error) })
        })
}

/** File tools on the local disk. */
export const LocalFilesLive = Layer.succeed(Files, LocalFileAccess)
