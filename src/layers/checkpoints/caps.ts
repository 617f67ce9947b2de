import * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import { accessSync, constants, lstatSync } from "node:fs"
import { join } from "node:path"
import type { NotKept } from "../../services/Checkpoints.js"

export interface Caps {
  /** A file bigger than this is never stored. */
  readonly maxFileBytes: number
  /** New or changed content one snapshot may add, in bytes. */
  readonly maxSnapshotBytes: number
}

export const DEFAULT_CAPS: Caps = { maxFileBytes: 10 * 1024 * 1024, maxSnapshotBytes: 200 * 1024 * 1024 }

/** A path staging looks at: one git reported as new, changed or gone. */
export interface Candidate {
  readonly path: string
  /** In our index (the last snapshot has it), so leaving it out means removing it from the index. */
  readonly tracked: boolean
}

/** What is on disk at a candidate's path, symlinks measured, never followed. */
export type OnDisk =
  | { readonly _tag: "gone" }
  | { readonly _tag: "folder" }
  | { readonly _tag: "special" }
  | { readonly _tag: "unreadable"; readonly bytes: number }
  | { readonly _tag: "file"; readonly bytes: number }

export type Measured = Candidate & { readonly disk: OnDisk }

const GONE: OnDisk = { _tag: "gone" }
const FOLDER: OnDisk = { _tag: "folder" }
const SPECIAL: OnDisk = { _tag: "special" }

/**
 * Whether every folder on the way to `path` is a real folder: git never looks beyond a symlink
 * (a tracked file under a folder that became a symlink is gone), and neither may we. Answers
 * are kept per folder for one measuring pass.
 */
const realFolders = (workspaceRoot: string, path: string, known: Map<string, boolean>): boolean => {
  const parts = path.split("/").slice(0, -1)
  for (let i = 1; i <= parts.length; i++) {
    const folder = parts.slice(0, i).join("/")
    let real = known.get(folder)
    if (real === undefined) {
      real = lstatSync(join(workspaceRoot, folder), { throwIfNoEntry: false })?.isDirectory() === true
      known.set(folder, real)
    }
    if (!real) return false
  }
  return true
}

/** An unreadable file would fail the whole `update-index`: it is left out instead, and named. */
const readable = (absolute: string) => {
  try {
    accessSync(absolute, constants.R_OK)
    return true
  } catch {
    return false
  }
}

const onDisk = (workspaceRoot: string, path: string, known: Map<string, boolean>): OnDisk => {
  const absolute = join(workspaceRoot, path)
  try {
    if (!realFolders(workspaceRoot, path, known)) return GONE
    const stats = lstatSync(absolute, { throwIfNoEntry: false })
    if (stats === undefined) return GONE
    if (stats.isDirectory()) return FOLDER
    if (stats.isSymbolicLink()) return { _tag: "file", bytes: stats.size }
    // A fifo, socket or device: git keeps none of them either.
    if (!stats.isFile()) return SPECIAL
    return readable(absolute) ? { _tag: "file", bytes: stats.size } : { _tag: "unreadable", bytes: stats.size }
  } catch {
    // A folder on the way we may not enter: git cannot see the file either.
    return GONE
  }
}

/**
 * Looks at each candidate on disk, a batch at a time with a yield in between, so a first
 * snapshot of a big tree does not hold up other fibers for its whole length.
 */
export const measure = (workspaceRoot: string, candidates: ReadonlyArray<Candidate>): Effect.Effect<Array<Measured>> =>
  Effect.suspend(() => {
    const known = new Map<string, boolean>()
    return Effect.map(
      Effect.forEach(Arr.chunksOf(candidates, 512), (batch) =>
        Effect.zipLeft(
          Effect.sync(() => batch.map((candidate) => ({ ...candidate, disk: onDisk(workspaceRoot, candidate.path, known) }))),
          Effect.yieldNow()
        )
      ),
      Arr.flatten
    )
  })

export interface StagingPlan {
  /** Tracked paths to take out of the index: gone from disk, or still there but not kept any more. */
  readonly remove: ReadonlyArray<string>
  /** Kept files to hash into the index. */
  readonly add: ReadonlyArray<string>
  readonly notKept: ReadonlyArray<NotKept>
}

/**
 * Applies the caps in path order (so the same tree always keeps the same files): a file over
 * the per-file cap is left out; a file that would take the snapshot's new content past its cap
 * is left out, and a smaller one after it may still fit. Unreadable files are left out, named;
 * fifos, sockets and devices silently, as git leaves them.
 */
export const planStaging = (measured: ReadonlyArray<Measured>, caps: Caps): StagingPlan => {
  const remove: Array<string> = []
  const add: Array<string> = []
  const notKept: Array<NotKept> = []
  let budget = caps.maxSnapshotBytes
  for (const { disk, path, tracked } of [...measured].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (disk._tag === "file" && disk.bytes <= caps.maxFileBytes && disk.bytes <= budget) {
      budget -= disk.bytes
      add.push(path)
      continue
    }
    if (tracked) remove.push(path)
    if (disk._tag === "file") notKept.push({ path, reason: disk.bytes > caps.maxFileBytes ? "file_too_large" : "snapshot_too_large", bytes: disk.bytes })
    if (disk._tag === "unreadable") notKept.push({ path, reason: "unreadable", bytes: disk.bytes })
  }
  return { remove, add, notKept }
}
