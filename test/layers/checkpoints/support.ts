import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { Effect, Layer, type Scope } from "effect"
import { execFileSync } from "node:child_process"
import { lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import * as GitCheckpoints from "../../../src/layers/checkpoints/layer.js"
import { repositoryDir } from "../../../src/layers/checkpoints/repository.js"
import { Checkpoints, type CheckpointsShape } from "../../../src/services/Checkpoints.js"
import { tempDir } from "../../support/mcp-fixtures.js"

export const platform = Layer.provide(NodeCommandExecutor.layer, NodeFileSystem.layer)

/** A Checkpoints service over a data directory of its own, for the scope. */
export const checkpointsIn = (dataDir: string, options: Partial<GitCheckpoints.CheckpointsOptions> = {}): Effect.Effect<CheckpointsShape, never, Scope.Scope> =>
  Effect.provide(GitCheckpoints.make({ dataDir, ...options }), platform)

/** A scratch workspace and a data directory (outside it), both removed with the scope, and the service over them. */
export const scratch = (options: Partial<GitCheckpoints.CheckpointsOptions> = {}) =>
  Effect.gen(function* () {
    const home = yield* tempDir("checkpoints-")
    const workspace = join(home, "ws")
    const dataDir = join(home, "data")
    mkdirSync(workspace)
    return { home, workspace, dataDir, checkpoints: yield* checkpointsIn(dataDir, options) }
  })

export { Checkpoints }

/** Writes a file, creating its folders. */
export const write = (root: string, path: string, content: string | Buffer) => {
  mkdirSync(dirname(join(root, path)), { recursive: true })
  writeFileSync(join(root, path), content)
}

/**
 * The workspace's files as the tests compare them: path -> `x:` or `-:` (the owner's execute
 * bit) and the content in base64, or `l:` and a symlink's target. `.git` folders are skipped.
 */
export const filesOf = (root: string, prefix = ""): Record<string, string> => {
  const found: Record<string, string> = {}
  for (const entry of readdirSync(join(root, prefix), { withFileTypes: true })) {
    if (entry.name === ".git") continue
    const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`
    const full = join(root, path)
    if (entry.isDirectory()) Object.assign(found, filesOf(root, path))
    else if (entry.isSymbolicLink()) found[path] = `l:${readlinkSync(full)}`
    else found[path] = `${(lstatSync(full).mode & 0o100) !== 0 ? "x" : "-"}:${readFileSync(full).toString("base64")}`
  }
  return found
}

/** Paths where two captures differ, sorted. */
export const differing = (a: Record<string, string>, b: Record<string, string>): Array<string> =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((path) => a[path] !== b[path]).sort()

/** The paths a stored tree holds, read straight from the workspace's private repository. */
export const storedPaths = (dataDir: string, workspace: string, treeId: string): Array<string> =>
  execFileSync("git", ["--git-dir", repositoryDir(dataDir, workspace), "ls-tree", "-r", "-z", "--name-only", treeId], {
    env: { PATH: process.env["PATH"] ?? "", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" }
  })
    .toString("utf8")
    .split("\0")
    .filter((path) => path !== "")
