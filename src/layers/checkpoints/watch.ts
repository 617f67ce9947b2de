import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { existsSync, type FSWatcher, lstatSync, mkdirSync, readdirSync, rmSync, statfsSync, watch, writeFileSync } from "node:fs"
import { basename, join } from "node:path"
import { messageOf } from "../../domain/cause-message.js"
import type { CheckpointError } from "../../services/Checkpoints.js"
import { nulFields } from "./git.js"
import type { Repository } from "./repository.js"

/**
 * Whether a workspace changed since its last full read, told by inotify instead of a `git status`
 * that lstat's every file. It only ever answers "nothing changed" when it can prove it; every
 * doubt (another platform, a network filesystem, too many folders, a watch that failed, an event
 * that did not arrive) makes the snapshot read the workspace in full, as it would without it.
 */
export interface WorkspaceWatch {
  /** True only when no event reached a watched folder since `arm`, events still queued in the kernel included. */
  readonly quiet: Effect.Effect<boolean>
  /** Call before a full read: watches folders that events hint are new, then clears the flag; changes from here on count. */
  readonly arm: Effect.Effect<void, CheckpointError>
  /** The next `quiet` says no: something wrote our index or a full read did not finish. */
  readonly spoil: Effect.Effect<void>
}

export interface WatchOptions {
  readonly enabled: boolean
  /** More folders than this to watch and the watch gives up (each folder is one inotify watch, a per-user kernel resource). */
  readonly maxFolders: number
}

export const DEFAULT_MAX_WATCHED_FOLDERS = 4096

/** Past this many hinted paths between two reads, the folder set is walked again instead of checked path by path. */
const MAX_HINTS = 1000

/** How long the barrier's own event may take before the watch is declared broken. */
const BARRIER_TIMEOUT = Duration.seconds(2)

/**
 * Filesystems whose changes made elsewhere (another machine, the Windows side of WSL, a FUSE
 * daemon) never reach inotify: statfs magic numbers of NFS, SMB/CIFS, FUSE, 9p, Ceph, AFS,
 * VirtualBox and Coda.
 */
const REMOTE_FILESYSTEMS = new Set([0x6969, 0x517b, 0xff534d42, 0xfe534d42, 0x65735546, 0x01021997, 0x00c36400, 0x5346414f, 0x786f4256, 0x73757245])

const GIT_INFO = ".git/info"

const ALWAYS_READ: WorkspaceWatch = { quiet: Effect.succeed(false), arm: Effect.void, spoil: Effect.void }

interface Watched {
  readonly watcher: FSWatcher
  readonly ino: number
}

/**
 * The folders git would look into: every folder of the work tree but `.git`, symlinks, folders
 * git reports as ignored as a whole, and the inside of nested repositories (the nested folder
 * itself is watched, so that losing its `.git` is seen). Undefined past `max`.
 */
const foldersToWatch = (root: string, ignored: ReadonlySet<string>, max: number): Map<string, number> | undefined => {
  const found = new Map<string, number>([["", lstatSync(root).ino]])
  // The repository's own excludes file counts as a .gitignore (see git.ts).
  const excludes = lstatSync(join(root, GIT_INFO), { throwIfNoEntry: false })
  if (excludes?.isDirectory() === true) found.set(GIT_INFO, excludes.ino)
  const pending = [""]
  for (let folder = pending.pop(); folder !== undefined; folder = pending.pop()) {
    let entries
    try {
      entries = readdirSync(join(root, folder), { withFileTypes: true })
    } catch {
      // Gone or unreadable since it was listed: git cannot look into it either, and its parent's watch sees it come back.
      continue
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === ".git") continue
      const path = folder === "" ? entry.name : `${folder}/${entry.name}`
      if (ignored.has(path)) continue
      const stat = lstatSync(join(root, path), { throwIfNoEntry: false })
      if (stat === undefined || !stat.isDirectory()) continue
      found.set(path, stat.ino)
      if (found.size > max) return undefined
      if (!existsSync(join(root, path, ".git"))) pending.push(path)
    }
  }
  return found
}

/** Folders `git ls-files --others --ignored --directory` names whole: nothing in them is kept, so nothing in them needs watching. */
const ignoredFolders = (repository: Repository) =>
  Effect.map(repository.run(["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]), (out) =>
    new Set(nulFields(out).filter((path) => path.endsWith("/")).map((path) => path.slice(0, -1)))
  )

/**
 * A watch of the workspace's folders for the life of the scope (the workspace's time in the
 * store's map). Node's `fs.watch` rather than the platform's watch stream: the barrier below
 * depends on libuv reading every watch of the loop from one inotify descriptor, in order.
 */
export const watchWorkspace = (repository: Repository, options: WatchOptions): Effect.Effect<WorkspaceWatch, never, Scope.Scope> =>
  Effect.gen(function* () {
    const root = repository.workspaceRoot
    if (!options.enabled || process.platform !== "linux") return ALWAYS_READ
    const filesystem = yield* Effect.try(() => statfsSync(root).type).pipe(Effect.option)
    if (filesystem._tag === "None" || REMOTE_FILESYSTEMS.has(filesystem.value)) {
      yield* Effect.logDebug(`checkpoints read ${root} in full at every step: its filesystem does not report others' changes`)
      return ALWAYS_READ
    }

    let broken = false
    let dirty = true
    let walkAgain = true
    const hints = new Set<string>()
    const watched = new Map<string, Watched>()
    const waiting = new Map<string, () => void>()
    let ticks = 0
    const barrierDir = join(repository.gitDir, "watch-barrier")

    let barrier: FSWatcher | undefined
    /** Folders whose own watch reported itself moved or deleted: its watch may sit on a dead inode (whose number a new folder can reuse). */
    const suspects = new Set<string>()
    const changed = (folder: string) => {
      const own = basename(join(root, folder))
      return (event: string, name: string | null) => {
        dirty = true
        if (name === null || folder === GIT_INFO) walkAgain = true
        else if (event === "rename" && name === own) {
          suspects.add(folder)
          walkAgain = true
        } else if (event === "rename" || name === ".gitignore") {
          if (hints.size >= MAX_HINTS) walkAgain = true
          else hints.add(folder === "" ? name : `${folder}/${name}`)
        }
      }
    }

    const closeAll = () => {
      for (const { watcher } of watched.values()) watcher.close()
      watched.clear()
    }

    const giveUp = (why: string) =>
      Effect.suspend(() => {
        if (broken) return Effect.void
        broken = true
        closeAll()
        barrier?.close()
        return Effect.logWarning(`checkpoints read ${root} in full at every step from now on: ${why}`)
      })

    const open = (path: string, ino: number): string | undefined => {
      try {
        const watcher = watch(join(root, path), { persistent: false }, changed(path))
        watcher.on("error", () => {
          watcher.close()
          watched.delete(path)
          dirty = true
          walkAgain = true
        })
        watched.set(path, { watcher, ino })
        return undefined
      } catch (error) {
        if (error instanceof Error && "code" in error && error.code === "ENOENT") {
          dirty = true
          return undefined
        }
        return `cannot watch ${path === "" ? "the workspace" : path}: ${messageOf(error)}`
      }
    }

    /** Watches exactly the folders git would look into now. */
    const walk = Effect.gen(function* () {
      const ignored = yield* ignoredFolders(repository)
      const listed = yield* Effect.try(() => foldersToWatch(root, ignored, options.maxFolders)).pipe(Effect.either)
      // The workspace itself is unreadable or gone: the full read that follows says so; try again next time.
      if (listed._tag === "Left") return
      const folders = listed.right
      if (folders === undefined) return yield* giveUp(`more than ${options.maxFolders} folders to watch`)
      for (const [path, { watcher, ino }] of watched) {
        if (folders.get(path) === ino && !suspects.has(path)) continue
        watcher.close()
        watched.delete(path)
      }
      for (const [path, ino] of folders) {
        if (watched.has(path)) continue
        const failed = open(path, ino)
        if (failed !== undefined) return yield* giveUp(failed)
      }
      suspects.clear()
      walkAgain = false
    })

    /** A hinted path that is now a folder nobody watches (new, moved in, or replaced), or a `.gitignore` that may un-ignore one. */
    const needsWalk = (path: string) => {
      if (path === ".gitignore" || path.endsWith("/.gitignore")) return true
      try {
        const stat = lstatSync(join(root, path), { throwIfNoEntry: false })
        if (stat?.isDirectory() !== true) return false
        return watched.get(path)?.ino !== stat.ino
      } catch {
        // A folder on the way became a file, or lost its permissions: walk rather than guess.
        return true
      }
    }

    const onBarrier = (_event: string, name: string | null) => {
      if (name === null) return
      const done = waiting.get(name)
      if (done === undefined) return
      waiting.delete(name)
      done()
    }
    const barrierOpened = yield* Effect.try(() => {
      mkdirSync(barrierDir, { recursive: true, mode: 0o700 })
      barrier = watch(barrierDir, { persistent: false }, onBarrier)
      barrier.on("error", () => {
        broken = true
        closeAll()
      })
    }).pipe(Effect.either)
    if (barrierOpened._tag === "Left") {
      yield* Effect.logWarning(`checkpoints read ${root} in full at every step: ${messageOf(barrierOpened.left)}`)
      return ALWAYS_READ
    }
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closeAll()
        barrier?.close()
        rmSync(barrierDir, { recursive: true, force: true })
      })
    )

    /**
     * A file created in our own watched folder: its event comes after every event the kernel
     * queued before it, so once it is heard every earlier change in the workspace has set `dirty`.
     */
    const flush = Effect.suspend(() => {
      const name = `tick-${++ticks}`
      const file = join(barrierDir, name)
      return Effect.async<boolean>((resume) => {
        waiting.set(name, () => resume(Effect.succeed(true)))
        try {
          writeFileSync(file, "")
        } catch {
          waiting.delete(name)
          resume(Effect.succeed(false))
        }
        return Effect.sync(() => waiting.delete(name))
      }).pipe(
        Effect.timeoutTo({ duration: BARRIER_TIMEOUT, onTimeout: () => false, onSuccess: (heard) => heard }),
        Effect.ensuring(Effect.sync(() => rmSync(file, { force: true })))
      )
    })

    return {
      quiet: Effect.gen(function* () {
        if (broken || dirty) return false
        if (!(yield* flush)) {
          yield* giveUp("the watch stopped answering")
          return false
        }
        return !dirty
      }),
      arm: Effect.gen(function* () {
        if (broken) return
        if (!walkAgain && [...hints].some(needsWalk)) walkAgain = true
        hints.clear()
        if (walkAgain) yield* walk
        dirty = false
      }),
      spoil: Effect.sync(() => {
        dirty = true
      })
    }
  })
