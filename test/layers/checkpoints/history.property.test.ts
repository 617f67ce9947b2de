import { describe, expect, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import { chmodSync, lstatSync, mkdirSync, renameSync, rmSync, symlinkSync } from "node:fs"
import { dirname, join } from "node:path"
import { differing, filesOf, scratch, write } from "./support.js"

/** Files are named `f...`, folders `d...`; `file-at-folder` and `symlink` change a path's type on purpose. */
const FILES = ["f a.txt", "d1/f-b", "d1/d2/f ü", "d1/d2/f-c", "d 3/f\nnl", "d 3/f:(glob)*"] as const
const DIRS = ["d1", "d1/d2", "d 3", "d4/d5"] as const
const CONTENTS = ["", "a", "b\n", "ü\r\n", "two\r\nlines\r\n", "x".repeat(300)] as const

const file = FastCheck.constantFrom(...FILES)
const folder = FastCheck.constantFrom(...DIRS)
const pick = FastCheck.nat()

const weighted = <T>(weight: number, arbitrary: FastCheck.Arbitrary<T>) => ({ weight, arbitrary })

const operation = FastCheck.oneof(
  weighted(6, FastCheck.record({ op: FastCheck.constant("write" as const), file, content: FastCheck.constantFrom(...CONTENTS) })),
  weighted(2, FastCheck.record({ op: FastCheck.constant("remove" as const), file })),
  weighted(2, FastCheck.record({ op: FastCheck.constant("rename" as const), file, to: file })),
  weighted(2, FastCheck.record({ op: FastCheck.constant("chmod" as const), file, exec: FastCheck.boolean() })),
  weighted(1, FastCheck.record({ op: FastCheck.constant("mkdir" as const), folder })),
  weighted(1, FastCheck.record({ op: FastCheck.constant("rmdir" as const), folder })),
  weighted(1, FastCheck.record({ op: FastCheck.constant("file-at-folder" as const), folder, content: FastCheck.constantFrom(...CONTENTS) })),
  weighted(1, FastCheck.record({ op: FastCheck.constant("symlink" as const), file, target: FastCheck.constantFrom("f a.txt", "d1", "missing", "../d 3") })),
  weighted(4, FastCheck.record({ op: FastCheck.constant("snapshot" as const) })),
  weighted(3, FastCheck.record({ op: FastCheck.constant("restore" as const), pick })),
  weighted(2, FastCheck.record({ op: FastCheck.constant("restore-path" as const), pick, path: FastCheck.oneof(file, folder) })),
  weighted(1, FastCheck.record({ op: FastCheck.constant("drift" as const), pick }))
)

/** The workspace before the first snapshot. */
const initial = FastCheck.array(FastCheck.record({ file, content: FastCheck.constantFrom(...CONTENTS), exec: FastCheck.boolean() }), { maxLength: 6 })

type Operation = typeof operation extends FastCheck.Arbitrary<infer T> ? T : never

/** What is at `path` (not following a final symlink); nothing when a file stands where a folder on the way should be. */
const isA = (path: string, kind: "directory" | "other") => {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false })
    return stats !== undefined && stats.isDirectory() === (kind === "directory")
  } catch {
    return false
  }
}

/** Makes `path` a fresh spot for a file: files or symlinks in the way of its folders, and a folder at it, are removed. */
const clear = (root: string, path: string) => {
  const parts = path.split("/")
  for (let i = 1; i < parts.length; i++) {
    const folder = join(root, ...parts.slice(0, i))
    if (isA(folder, "other")) rmSync(folder)
  }
  mkdirSync(dirname(join(root, path)), { recursive: true })
  rmSync(join(root, path), { recursive: true, force: true })
}

/** Applies a file operation to the workspace; one that does not apply (nothing to remove) does nothing. */
const touch = (root: string, step: Operation) => {
  switch (step.op) {
    case "write":
      clear(root, step.file)
      write(root, step.file, step.content)
      break
    case "remove":
      if (isA(join(root, step.file), "other")) rmSync(join(root, step.file))
      break
    case "rename":
      if (!isA(join(root, step.file), "other") || step.file === step.to) break
      clear(root, step.to)
      renameSync(join(root, step.file), join(root, step.to))
      break
    case "chmod":
      if (isA(join(root, step.file), "other") && !lstatSync(join(root, step.file)).isSymbolicLink()) chmodSync(join(root, step.file), step.exec ? 0o755 : 0o644)
      break
    case "mkdir":
      clear(root, step.folder)
      mkdirSync(join(root, step.folder))
      break
    case "rmdir":
      if (isA(join(root, step.folder), "directory")) rmSync(join(root, step.folder), { recursive: true })
      break
    case "file-at-folder":
      clear(root, step.folder)
      write(root, step.folder, step.content)
      break
    case "symlink":
      clear(root, step.file)
      symlinkSync(step.target, join(root, step.file))
      break
    default:
      break
  }
}

describe("checkpoints over random histories", () => {
  it.live.prop(
    "a restore brings back exactly the files (content and execute bit) of the snapshot; changed and drift name exactly what differs",
    { start: initial, steps: FastCheck.array(operation, { minLength: 1, maxLength: 30 }) },
    ({ start, steps }) =>
      Effect.scoped(
        Effect.gen(function* () {
          const { workspace, checkpoints } = yield* scratch()
          for (const { file, content, exec } of start) {
            write(workspace, file, content)
            chmodSync(join(workspace, file), exec ? 0o755 : 0o644)
          }
          const first = yield* checkpoints.snapshot(workspace)
          expect(first.parent).toBeUndefined()
          const taken: Array<{ readonly treeId: string; readonly files: Record<string, string> }> = [{ treeId: first.treeId, files: filesOf(workspace) }]
          // What the service recorded last: a snapshot's files, or the workspace just before a restore (which records it first).
          let recorded = filesOf(workspace)
          for (const step of steps) {
            const now = filesOf(workspace)
            const target = "pick" in step ? taken[step.pick % taken.length] : undefined
            if (step.op === "snapshot") {
              const snapshot = yield* checkpoints.snapshot(workspace)
              expect(snapshot.changed).toEqual(differing(recorded, now))
              expect(snapshot.notKept).toEqual([])
              taken.push({ treeId: snapshot.treeId, files: now })
              recorded = now
            } else if (step.op === "restore" && target !== undefined) {
              const restored = yield* checkpoints.restore(workspace, target.treeId)
              expect(filesOf(workspace)).toEqual(target.files)
              expect(restored.paths).toEqual(differing(now, target.files))
              recorded = now
            } else if (step.op === "restore-path" && target !== undefined) {
              const inScope = (path: string) => path === step.path || path.startsWith(`${step.path}/`)
              const restoredHere = Object.keys(target.files).filter(inScope)
              // A file standing where a restored file needs a folder goes too.
              const inTheWay = (path: string) => restoredHere.some((restored) => restored.startsWith(`${path}/`))
              const expected = Object.fromEntries(
                Object.entries({ ...now, ...target.files }).flatMap(([path]) => {
                  const value = inScope(path) ? target.files[path] : inTheWay(path) ? undefined : now[path]
                  return value === undefined ? [] : [[path, value]]
                })
              )
              const restored = yield* checkpoints.restore(workspace, target.treeId, [step.path])
              expect(filesOf(workspace)).toEqual(expected)
              expect(restored.paths).toEqual(differing(now, expected))
              recorded = now
            } else if (step.op === "drift" && target !== undefined) {
              expect(yield* checkpoints.drift(workspace, target.treeId)).toEqual(differing(target.files, now))
            } else {
              touch(workspace, step)
            }
          }
        })
      ),
    { timeout: 120_000, fastCheck: { numRuns: 20 } }
  )
})
