import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { appendFile, lstat, mkdir, rmdir, unlink } from "node:fs/promises"
import { dirname } from "node:path"
import { SandboxError } from "../../services/Sandbox.js"
import { errnoCode } from "../tools/fs-errors.js"
import type { ProtectedPath } from "./protected-paths.js"

/**
 * Protected paths that must exist while sandboxed commands run, so they can be bound
 * read-only: what is missing is created empty while some command of this process still
 * needs it, then removed if still empty, leaving the workspace as it was.
 */
export interface Placeholders {
  /** Makes each path exist until the scope closes. */
  readonly hold: (paths: ReadonlyArray<ProtectedPath>) => Effect.Effect<void, SandboxError, Scope.Scope>
}

interface Entry {
  users: number
  /** What was created for it, deepest first. */
  readonly created: ReadonlyArray<string>
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    (error: unknown) => {
      if (errnoCode(error) === "ENOENT") return false
      throw error
    }
  )

/** Creates `path` and any missing directory above it; what it created, deepest first (none when it existed). */
const create = async (held: ProtectedPath): Promise<ReadonlyArray<string>> => {
  const missing: Array<string> = []
  for (let path = held.path; !(await exists(path)); path = dirname(path)) missing.push(path)
  if (missing.length === 0) return []
  if (held.kind === "directory") {
    await mkdir(held.path, { recursive: true, ...(held.mode === undefined ? {} : { mode: held.mode }) })
  } else {
    await mkdir(dirname(held.path), { recursive: true })
    // Appending nothing creates the file, and never changes one that appeared meanwhile.
    await appendFile(held.path, "")
  }
  return missing
}

/** Removes what was created, deepest first, where nothing was put in it meanwhile. */
const remove = (created: ReadonlyArray<string>): Effect.Effect<void> =>
  Effect.forEach(
    created,
    (path) =>
      Effect.tryPromise(async () => {
        const stat = await lstat(path)
        if (stat.isDirectory()) await rmdir(path)
        else if (stat.size === 0) await unlink(path)
      }).pipe(
        Effect.catchAll(({ error }) => {
          // Not empty, or gone: whoever wrote there or removed it meant to, and it stays as they left it.
          const code = errnoCode(error)
          if (code === "ENOTEMPTY" || code === "EEXIST" || code === "ENOENT") return Effect.void
          return Effect.logWarning(`could not remove ${path}, made for the sandbox: ${String(error)}`)
        })
      ),
    { discard: true }
  )

export const make: Effect.Effect<Placeholders> = Effect.gen(function* () {
  // One at a time: a path is never removed by one command's end while another's start counts on it.
  const lock = yield* Effect.makeSemaphore(1)
  const entries = new Map<string, Entry>()

  const acquire = (held: ProtectedPath) =>
    Effect.tryPromise({
      try: async () => {
        const entry = entries.get(held.path)
        if (entry !== undefined) {
          entry.users++
          return held.path
        }
        const created = await create(held)
        if (created.length === 0) return undefined
        entries.set(held.path, { users: 1, created })
        return held.path
      },
      catch: (error) => new SandboxError({ message: `cannot create ${held.path} to protect it: ${String(error)}`, cause: error })
    })

  const release = (key: string | undefined) =>
    Effect.suspend(() => {
      const entry = key === undefined ? undefined : entries.get(key)
      if (key === undefined || entry === undefined || --entry.users > 0) return Effect.void
      entries.delete(key)
      return remove(entry.created)
    })

  return {
    hold: (paths) =>
      Effect.forEach(paths, (held) => Effect.acquireRelease(lock.withPermits(1)(acquire(held)), (key) => lock.withPermits(1)(release(key))), {
        discard: true
      })
  }
})
