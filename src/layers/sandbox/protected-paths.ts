import * as Effect from "effect/Effect"
import type { Stats } from "node:fs"
import { lstat, readlink, realpath, stat } from "node:fs/promises"
import { dirname, join, relative, resolve, sep } from "node:path"
import { SandboxError } from "../../services/Sandbox.js"
import { errnoCode } from "../tools/fs-errors.js"
import { linkedConfigTargets } from "../permission/protected-paths.js"
import { isWithin } from "../tools/workspace-paths.js"
import type { MountPlan } from "./arguments.js"

/** A path no sandboxed command may change, and what to create while a command runs when it does not exist. */
export interface ProtectedPath {
  readonly path: string
  readonly kind: "directory" | "file"
  /** For a directory we create: the agent's config and data directories are private. */
  readonly mode?: number
}

const lstatOrUndefined = (path: string): Effect.Effect<Stats | undefined, SandboxError> =>
  Effect.tryPromise({
    try: () => lstat(path),
    catch: (error) => error
  }).pipe(
    Effect.catchAll((error) =>
      errnoCode(error) === "ENOENT" ? Effect.succeed(undefined) : Effect.fail(new SandboxError({ message: `cannot inspect ${path}: ${String(error)}`, cause: error }))
    )
  )

/** Where a link leads, when that is a directory. */
const realOrUndefined = (path: string): Effect.Effect<string | undefined> =>
  Effect.promise(() =>
    realpath(path).then(
      async (real) => ((await stat(real)).isDirectory() ? real : undefined),
      () => undefined
    )
  )

/**
 * What sandboxed commands must not change: the project's `.custom-agent/`, Claude Code's
 * project folder where it exists (its hooks and their scripts run once trusted; an edit would
 * switch a trusted guard hook off), the whole top-level `.git` (or a `.git` file, which says where the
 * repository is), and the agent's own configuration and data directories. (Git below the top
 * level: nested-git.ts.)
 */
export const protectedPaths = (workspaceRoot: string, configDir: string, dataDir: string): Effect.Effect<ReadonlyArray<ProtectedPath>, SandboxError> =>
  Effect.gen(function* () {
    const git = join(workspaceRoot, ".git")
    const gitStat = yield* lstatOrUndefined(git)
    // The whole repository, not only its hooks and config: `commondir`, `index` (a gitlink to a
    // planted nested repository), `info/`, refs and objects all steer what the user's next git
    // command runs. No repository: an empty, read-only .git keeps a command from making one.
    // Its hooks and config also by name: a link there into the writable workspace cannot be held
    // (an error, see resolveHeld), where the read-only .git alone would keep the link and not
    // what it leads to.
    const gitPaths: ReadonlyArray<ProtectedPath> =
      gitStat?.isDirectory() === true
        ? [
            { path: git, kind: "directory" },
            { path: join(git, "hooks"), kind: "directory" },
            { path: join(git, "config"), kind: "file" }
          ]
        : [{ path: git, kind: gitStat?.isFile() === true ? "file" : "directory" }]
    // Claude Code's whole folder (settings, the hook scripts they run and what those load), and
    // where a link to it leads: its target is what the hooks are read from. A missing one is
    // created by nobody here; a command that creates it makes the project untrusted.
    const claude = join(workspaceRoot, ".claude")
    const claudeStat = yield* lstatOrUndefined(claude)
    const claudeTarget = claudeStat?.isSymbolicLink() === true ? yield* realOrUndefined(claude) : claudeStat?.isDirectory() === true ? claude : undefined
    const claudePaths: ReadonlyArray<ProtectedPath> = claudeTarget === undefined ? [] : [{ path: claudeTarget, kind: "directory" }]
    // A configuration file that is a link: what it leads to is what the rules are read from.
    const linkedConfig: ReadonlyArray<ProtectedPath> = linkedConfigTargets(workspaceRoot).map((path) => ({ path, kind: "file" }))
    return [
      { path: join(workspaceRoot, ".custom-agent"), kind: "directory" },
      ...claudePaths,
      ...linkedConfig,
      ...gitPaths,
      { path: configDir, kind: "directory", mode: 0o700 },
      { path: dataDir, kind: "directory", mode: 0o700 }
    ]
  })

/**
 * Where the host will find `path`, following symbolic links one at a time. A link inside the
 * writable workspace could be swapped by a sandboxed command for one pointing elsewhere, so
 * the path could not be held: that is an error. Components that do not exist are kept as they are.
 */
const resolveHeld = (path: string, workspaceRoot: string): Effect.Effect<string, SandboxError> =>
  Effect.gen(function* () {
    const pending = resolve(path).split(sep).filter((part) => part !== "")
    let current: string = sep
    let links = 0
    while (pending.length > 0) {
      const name = pending.shift() ?? ""
      if (name === ".") continue
      if (name === "..") {
        current = dirname(current)
        continue
      }
      const next = join(current, name)
      const stat = yield* Effect.tryPromise({ try: () => lstat(next), catch: (error) => error }).pipe(
        Effect.map((found): Stats | undefined => found),
        Effect.catchAll((error) => {
          const code = errnoCode(error)
          // Missing, or under a file: the path does not exist. Inside the workspace, a file
          // where a directory should be could be replaced by one, so it cannot be held.
          if (code === "ENOENT" || (code === "ENOTDIR" && !isWithin(workspaceRoot, current))) return Effect.succeed(undefined)
          return Effect.fail(new SandboxError({ message: `cannot protect ${path}: cannot inspect ${next}: ${String(error)}`, cause: error }))
        })
      )
      if (stat === undefined) return resolve(next, ...pending)
      if (!stat.isSymbolicLink()) {
        current = next
        continue
      }
      if (isWithin(workspaceRoot, current)) {
        return yield* new SandboxError({
          message: `cannot protect ${path}: it goes through the symbolic link ${next} inside the workspace, which a sandboxed command could replace; make it a real directory or file, or run with --sandbox off`
        })
      }
      if (++links > 40) return yield* new SandboxError({ message: `cannot protect ${path}: too many symbolic links` })
      const target = yield* Effect.tryPromise({
        try: () => readlink(next),
        catch: (error) => new SandboxError({ message: `cannot protect ${path}: cannot read the link ${next}: ${String(error)}`, cause: error })
      })
      if (target.startsWith(sep)) current = sep
      pending.unshift(...target.split(sep).filter((part) => part !== ""))
    }
    return current
  })

const depth = (path: string) => path.split(sep).length

const sortedUnique = (paths: Iterable<string>) => [...new Set(paths)].sort((a, b) => depth(a) - depth(b) || a.localeCompare(b))

/** The mounts for the protected paths, and those of them inside the workspace, where they are (to be created if missing). */
export interface Plan {
  readonly mounts: MountPlan
  readonly inside: ReadonlyArray<ProtectedPath>
}

/**
 * The mounts that hold each protected path inside the workspace (outside it, the read-only
 * root holds them, and the private /tmp hides the host's). Those inside must exist before the
 * sandbox starts (see placeholders.ts): a command must not be able to create them either. A
 * workspace inside a protected directory is read-only as a whole.
 */
export const planMounts = (workspaceRoot: string, paths: ReadonlyArray<ProtectedPath>): Effect.Effect<Plan, SandboxError> =>
  Effect.gen(function* () {
    const pinned: Array<string> = []
    const readOnly: Array<string> = []
    const held: Array<ProtectedPath> = []
    for (const path of paths) {
      const real = yield* resolveHeld(path.path, workspaceRoot)
      if (isWithin(real, workspaceRoot)) {
        readOnly.push(workspaceRoot)
        continue
      }
      if (!isWithin(workspaceRoot, real)) continue
      held.push({ ...path, path: real })
      const between = relative(workspaceRoot, real).split(sep).slice(0, -1)
      between.forEach((_, i) => pinned.push(join(workspaceRoot, ...between.slice(0, i + 1))))
      readOnly.push(real)
    }
    return { mounts: { pinned: sortedUnique(pinned), readOnly: sortedUnique(readOnly) }, inside: held }
  })
