import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { lstatSync, type Stats, statSync } from "node:fs"
import { join } from "node:path"
import { CheckpointError } from "../../services/Checkpoints.js"

/**
 * Workspaces whose checkpoints are off for the rest of the process. A workspace can make git
 * wait on a read until the call's time limit (a fifo where git reads a `.gitignore` or a
 * `.gitattributes`, in any folder); git has no option to skip those reads and still respect
 * `.gitignore`, so without this every checkpoint (each step) would wait the full limit again.
 * Once one call is stopped, nothing of that workspace's work tree is read again by this process.
 */
export interface Breaker {
  /**
   * Fails at once when checkpoints of `root` are off; turns them off first (no git call at all)
   * when one of the workspace's own ignore or attribute files is something git would block on.
   */
  readonly guard: (root: string) => Effect.Effect<void, CheckpointError>
  /** Turns checkpoints of `root` off for good; the first time, one warning says why and what is lost. */
  readonly trip: (root: string, why: string) => Effect.Effect<void>
}

const offMessage = (root: string, why: string) => `checkpoints of ${root} are off until the agent restarts: ${why}`

/**
 * The workspace's own files that git reads on every status and staging, found by a few stats:
 * `.gitignore` and `.gitattributes` are opened without following a link (git 2.32+), the
 * repository's excludes file (our `core.excludesFile`) following it. Deeper ones are not looked
 * for (that would be a walk of the tree); the time limit and `trip` bound them.
 */
const ROOT_FILES: ReadonlyArray<{ readonly path: string; readonly follow: boolean }> = [
  { path: ".gitignore", follow: false },
  { path: ".gitattributes", follow: false },
  { path: join(".git", "info", "exclude"), follow: true }
]

/**
 * Opening a fifo waits for a writer, and any process can make one. A device (a link to one, as
 * the excludes file) is not judged: git reads such a file only up to its stat size, 0 for a
 * device, so `/dev/zero` or `/dev/null` are harmless; the time limit bounds one whose open waits.
 */
const isFifo = (stats: Stats | undefined): boolean => stats?.isFIFO() === true

const statOf = (file: string, follow: boolean): Stats | undefined => {
  try {
    return follow ? statSync(file, { throwIfNoEntry: false }) : lstatSync(file, { throwIfNoEntry: false })
  } catch {
    // A folder on the way that is not one, or that we may not enter (or a link loop): git cannot open the file either, so it cannot wait on it.
    return undefined
  }
}

/** Why git would block on one of the workspace's own ignore or attribute files, if it would. */
export const blockingRootFile = (root: string): string | undefined => {
  for (const { path, follow } of ROOT_FILES) {
    if (isFifo(statOf(join(root, path), follow))) return `the workspace's ${path} is a fifo, which git would wait on when it reads it`
  }
  return undefined
}

export const makeBreaker: Effect.Effect<Breaker> = Effect.map(Ref.make(HashMap.empty<string, string>()), (off) => {
  const trip = (root: string, why: string) =>
    Effect.flatMap(
      Ref.modify(off, (map) => (HashMap.has(map, root) ? [false, map] : [true, HashMap.set(map, root, why)])),
      (first) =>
        first
          ? Effect.logWarning(
              `${offMessage(root, why)}. No checkpoint of its files is recorded from now on, so file changes there cannot be rewound (rewinding the conversation still works), and restoring files or checking them for drift fails at once.`
            )
          : Effect.void
    )
  const guard = (root: string) =>
    Effect.gen(function* () {
      const known = HashMap.get(yield* Ref.get(off), root)
      const why = Option.isSome(known) ? known.value : yield* Effect.sync(() => blockingRootFile(root))
      if (why === undefined) return
      yield* trip(root, why)
      return yield* new CheckpointError({ workspaceRoot: root, message: offMessage(root, why) })
    })
  return { guard, trip }
})
