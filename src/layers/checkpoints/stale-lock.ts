import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { rmSync, statSync } from "node:fs"
import { relative } from "node:path"
import { CheckpointError } from "../../services/Checkpoints.js"
import type { Repository } from "./repository.js"

/**
 * Git removes its lock files on every exit and signal; one left behind means a machine (or
 * container) stopped mid-call. Our calls take well under this, so a lock this old has no owner.
 */
export const STALE_LOCK_AGE_MS = 60_000

/** The lock file a failed git call names ("Unable to create '<path>.lock': File exists"), when it lies in our repository. */
const lockNamed = (repository: Repository, message: string): string | undefined => {
  const named = /Unable to create '([^']+\.lock)': File exists/.exec(message)?.[1]
  if (named === undefined) return undefined
  const inside = relative(repository.gitDir, named)
  return inside === "" || inside.startsWith("..") ? undefined : named
}

/**
 * Runs `use`; when it fails on a lock file of our repository that is older than
 * `STALE_LOCK_AGE_MS`, removes the lock (with a warning) and runs it once more. A younger lock
 * belongs to a call in flight (another process sharing the data directory): the failure stands.
 */
export const clearingStaleLock = <A>(repository: Repository, use: Effect.Effect<A, CheckpointError>): Effect.Effect<A, CheckpointError> =>
  Effect.catchIf(
    use,
    (error) => lockNamed(repository, error.message) !== undefined,
    (error) =>
      Effect.gen(function* () {
        const lock = lockNamed(repository, error.message) ?? ""
        const now = yield* Clock.currentTimeMillis
        const modified = yield* Effect.try({
          try: () => statSync(lock, { throwIfNoEntry: false })?.mtimeMs,
          catch: (cause) => new CheckpointError({ workspaceRoot: repository.workspaceRoot, message: `cannot look at ${lock}`, cause })
        })
        // Gone meanwhile: its call finished, so trying again is what the caller would do.
        if (modified !== undefined && now - modified < STALE_LOCK_AGE_MS) {
          return yield* new CheckpointError({
            workspaceRoot: repository.workspaceRoot,
            message: `${lock} exists: another process is using the checkpoint repository (if none is, delete that file)`,
            cause: error
          })
        }
        if (modified !== undefined) {
          yield* Effect.try({
            try: () => rmSync(lock, { force: true }),
            catch: (cause) => new CheckpointError({ workspaceRoot: repository.workspaceRoot, message: `cannot remove the stale ${lock}`, cause })
          })
          yield* Effect.logWarning(`removed ${lock}, left ${Math.round((now - modified) / 1000)} s ago by a git call that never finished`)
        }
        return yield* use
      })
  )
