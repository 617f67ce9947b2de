import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { CheckpointError, Checkpoints, type CheckpointsShape } from "../../src/services/Checkpoints.js"

interface Entry {
  readonly content: Buffer
  readonly mode: number
}
type Tree = ReadonlyMap<string, Entry>

const walk = (root: string, dir = ""): Array<[string, Entry]> =>
  readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry): Array<[string, Entry]> => {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`
    if (entry.isDirectory()) return entry.name === ".git" ? [] : walk(root, path)
    if (!entry.isFile()) return []
    const full = join(root, path)
    return [[path, { content: readFileSync(full), mode: statSync(full).mode & 0o777 }]]
  })

const idOf = (tree: Tree) => {
  const hash = createHash("sha1")
  for (const [path, entry] of [...tree].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${path}\0${entry.mode}\0`).update(entry.content).update("\0")
  return `tree_${hash.digest("hex").slice(0, 16)}`
}

const differ = (a: Entry | undefined, b: Entry | undefined) =>
  a === undefined || b === undefined ? a !== b : a.mode !== b.mode || !a.content.equals(b.content)

const diff = (a: Tree, b: Tree): ReadonlyArray<string> =>
  [...new Set([...a.keys(), ...b.keys()])].filter((path) => differ(a.get(path), b.get(path))).sort()

/**
 * The Checkpoints port in memory, over a real workspace on disk: content-addressed trees (the
 * same files give the same id), the whole tree kept, no ignore rules or caps. `calls` counts
 * snapshots; `failing` makes the next snapshots fail.
 */
export const makeFakeCheckpoints = () => {
  const trees = new Map<string, Tree>()
  const latest = new Map<string, string>()
  const state = { snapshots: 0, failing: false }
  const attempt = <A>(workspaceRoot: string, run: () => A) =>
    Effect.try({ try: run, catch: (cause) => new CheckpointError({ workspaceRoot, message: String(cause), cause }) })
  const treeOf = (treeId: string): Tree => {
    const tree = trees.get(treeId)
    if (tree === undefined) throw new Error(`no tree ${treeId}`)
    return tree
  }
  const shape: CheckpointsShape = {
    snapshot: (workspaceRoot) =>
      attempt(workspaceRoot, () => {
        state.snapshots++
        if (state.failing) throw new Error("the checkpoint store is failing (test)")
        const tree: Tree = new Map(walk(workspaceRoot))
        const treeId = idOf(tree)
        trees.set(treeId, tree)
        const parent = latest.get(workspaceRoot)
        latest.set(workspaceRoot, treeId)
        const changed = parent === undefined ? [...tree.keys()].sort() : diff(treeOf(parent), tree)
        return { treeId, ...(parent === undefined ? {} : { parent }), changed, notKept: [] }
      }),
    drift: (workspaceRoot, treeId) => attempt(workspaceRoot, () => diff(new Map(walk(workspaceRoot)), treeOf(treeId))),
    restore: (workspaceRoot, treeId, paths) =>
      attempt(workspaceRoot, () => {
        const tree = treeOf(treeId)
        const now: Tree = new Map(walk(workspaceRoot))
        const written = diff(now, tree).filter((path) => paths === undefined || paths.includes(path))
        for (const path of written) {
          const full = join(workspaceRoot, path)
          const entry = tree.get(path)
          if (entry === undefined) {
            rmSync(full, { force: true })
            continue
          }
          mkdirSync(dirname(full), { recursive: true })
          writeFileSync(full, entry.content)
          chmodSync(full, entry.mode)
        }
        return { treeId, paths: written }
      }),
    changedBetween: (workspaceRoot, from, to) => attempt(workspaceRoot, () => diff(treeOf(from), treeOf(to)))
  }
  return { layer: Layer.succeed(Checkpoints, shape), state }
}
