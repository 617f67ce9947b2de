import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { statSync } from "node:fs"

/**
 * What identifies a file's content on disk, without reading it: its inode, size and times (a
 * file rewritten through a new name has a new inode; one edited in place, new times). "missing"
 * when there is none; undefined when it cannot be told, so the file is read again.
 */
export const fileSignature = (file: string): string | undefined => {
  try {
    const stat = statSync(file, { bigint: true })
    return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
  } catch (error) {
    return error instanceof Error && "code" in error && error.code === "ENOENT" ? "missing" : undefined
  }
}

/**
 * `read` of `file` as the file is now: read again whenever its signature changed since the last
 * read (one stat a call otherwise), so a long-running process (the local host, `serve`) sees
 * the user's edits and other processes' writes at its next use. A failure is kept like a value,
 * until the file changes.
 */
export const readWhenChanged = <A, E>(file: string, read: Effect.Effect<A, E>): Effect.Effect<Effect.Effect<A, E>> =>
  Effect.sync(() => {
    let cached: { readonly signature: string; readonly result: Exit.Exit<A, E> } | undefined
    return Effect.suspend(() => {
      // Taken before the read: a change during it is read at the next call.
      const signature = fileSignature(file)
      if (signature !== undefined && cached?.signature === signature) return cached.result
      return Effect.tap(Effect.exit(read), (result) =>
        Effect.sync(() => {
          cached = signature === undefined ? undefined : { signature, result }
        })
      ).pipe(Effect.flatten)
    })
  })
