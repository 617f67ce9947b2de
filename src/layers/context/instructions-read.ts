import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { FileHandle } from "node:fs/promises"
import { constants } from "node:fs"
import * as fs from "node:fs/promises"
import { describeFsError, errnoCode } from "../tools/fs-errors.js"
import { type ProjectFileBounds, refusedProjectFile } from "./project-file-bounds.js"

/** A text file that could not be read; `missing` when there is simply nothing at the path. */
export class TextFileError extends Data.TaggedError("TextFileError")<{
  readonly path: string
  readonly missing: boolean
  readonly message: string
}> {}

export interface TextPrefix {
  /** UTF-8 text of at most `maxBytes` bytes, cut on a character boundary; a leading BOM is dropped. */
  readonly text: string
  /** True when the file holds more than `maxBytes` bytes. */
  readonly truncated: boolean
  /** The file's size on disk when it was opened. */
  readonly size: number
}

/**
 * Reads at most `maxBytes` of a regular file as UTF-8, without loading the rest. Directories,
 * devices and pipes are refused before anything is read from them (a pipe would block). A
 * project's file (`project` given) is read only where its bounds allow (project-file-bounds.ts).
 */
export const readTextPrefix = (file: string, maxBytes: number, project?: ProjectFileBounds): Effect.Effect<TextPrefix, TextFileError> =>
  Effect.gen(function* () {
    // A repository's file is read only where it really lies inside the workspace: a link to
    // `/proc/self/environ`, `~/.ssh/id_rsa` or `../.env` would put what nobody approved reading
    // into the model's context as instructions.
    const opened = project === undefined ? file : yield* judgedLocation(file, project)
    return yield* Effect.acquireUseRelease(
      // Without blocking, and judged by what was opened: a fifo opens at once and is refused
      // below; a check before the open could be answered by one file and the open by another.
      // The judged real path is opened without following a link its last part became since.
      Effect.tryPromise({
        try: () => fs.open(opened, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | (project === undefined ? 0 : constants.O_NOFOLLOW)),
        catch: (error) => fsError(file, error)
      }),
      (handle) =>
        Effect.gen(function* () {
          const stat = yield* Effect.tryPromise({ try: () => handle.stat(), catch: (error) => fsError(file, error) })
          if (stat.isDirectory()) return yield* new TextFileError({ path: file, missing: false, message: `${file} is a directory, not a file` })
          if (!stat.isFile()) return yield* new TextFileError({ path: file, missing: false, message: `${file} is not a regular file` })
          return yield* readPrefix(handle, file, maxBytes, stat.size)
        }),
      (handle) =>
        Effect.tryPromise(() => handle.close()).pipe(
          Effect.catchAll((error) => Effect.logWarning(`could not close ${file}`, error))
        )
    )
  })

/** The file's real path, when its bounds allow reading it there; otherwise a refusal naming the file and why. */
const judgedLocation = (file: string, project: ProjectFileBounds): Effect.Effect<string, TextFileError> =>
  Effect.gen(function* () {
    const real = yield* Effect.tryPromise({ try: () => fs.realpath(file), catch: (error) => fsError(file, error) })
    const refused = refusedProjectFile(file, real, project)
    if (refused === undefined) return real
    return yield* new TextFileError({ path: file, missing: false, message: refused })
  })

const readPrefix = (handle: FileHandle, file: string, maxBytes: number, size: number): Effect.Effect<TextPrefix, TextFileError> =>
  Effect.tryPromise({
    try: async () => {
      // One byte more than allowed tells a file of exactly maxBytes from a longer one.
      const buffer = Buffer.alloc(maxBytes + 1)
      let filled = 0
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled)
        if (bytesRead === 0) break
        filled += bytesRead
      }
      const truncated = filled > maxBytes
      const end = truncated ? characterBoundary(buffer, maxBytes) : filled
      return { text: new TextDecoder("utf-8").decode(buffer.subarray(0, end)), truncated, size }
    },
    catch: (error) => fsError(file, error)
  })

/** The largest offset <= `limit` that does not split a UTF-8 sequence (continuation bytes are 10xxxxxx). */
const characterBoundary = (buffer: Buffer, limit: number): number => {
  let end = limit
  while (end > 0 && ((buffer[end] ?? 0) & 0xc0) === 0x80) end--
  return end
}

const fsError = (file: string, error: unknown) => {
  const code = errnoCode(error)
  return new TextFileError({ path: file, missing: code === "ENOENT" || code === "ENOTDIR", message: describeFsError("read", file, error) })
}
