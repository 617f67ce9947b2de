import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as RcMap from "effect/RcMap"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { realpath, stat } from "node:fs/promises"
import { messageOf } from "../../domain/cause-message.js"
import { CheckpointError, Checkpoints, type CheckpointsShape } from "../../services/Checkpoints.js"
import { makeBreaker } from "./breaker.js"
import { DEFAULT_CAPS } from "./caps.js"
import { drift } from "./drift.js"
import { openRepository } from "./repository.js"
import { restore } from "./restore.js"
import { forgetRead, snapshot } from "./snapshot.js"
import { clearingStaleLock } from "./stale-lock.js"
import { checkedTreeId, pathsBetween } from "./trees.js"
import { DEFAULT_CALL_TIMEOUT } from "./git.js"
import { DEFAULT_MAX_WATCHED_FOLDERS, watchWorkspace } from "./watch.js"
import type { Head, LastRead, Workspace } from "./workspace.js"

export interface CheckpointsOptions {
  /** Repositories live in `<dataDir>/checkpoints/`. */
  readonly dataDir: string
  /** Files bigger than this are not stored (default 10 MiB). */
  readonly maxFileBytes?: number
  /** New or changed content one snapshot may store (default 200 MiB). */
  readonly maxSnapshotBytes?: number
  /** The git executable (default `git` on PATH). */
  readonly git?: string
  /** How long a workspace stays open after its last use (default one minute); the map of open workspaces never grows past those in use. */
  readonly idleTimeToLive?: Duration.DurationInput
  /**
   * Watch the workspace's folders (inotify, Linux only) so that a snapshot of an unchanged
   * workspace reads nothing (default true; off reads the workspace in full every time).
   */
  readonly watch?: boolean
  /** More folders than this and a workspace is read in full every time (default 4096). */
  readonly maxWatchedFolders?: number
  /**
   * The longest one git call may take (default two minutes): the workspace can make git wait
   * forever (a fifo where it reads a `.gitignore`), and no turn may hang on the workspace. A call
   * stopped by it turns that workspace's checkpoints off for the rest of the process, so the
   * wait is paid once, not at every step (`breaker.ts`).
   */
  readonly callTimeout?: Duration.DurationInput
}

/** The workspace's real path, so that two spellings of one folder share a repository and a lock. */
const realWorkspace = (workspaceRoot: string) =>
  Effect.tryPromise({
    try: async () => {
      const real = await realpath(workspaceRoot)
      if (!(await stat(real)).isDirectory()) throw new Error("not a directory")
      return real
    },
    catch: (cause) => new CheckpointError({ workspaceRoot, message: `no workspace at ${workspaceRoot}: ${messageOf(cause)}`, cause })
  })

/**
 * Checkpoints in a private git repository per workspace (see `docs/architecture.md`,
 * "Checkpoints"). Snapshot, drift and restore of one workspace run one at a time.
 */
export const make = (options: CheckpointsOptions): Effect.Effect<CheckpointsShape, never, CommandExecutor.CommandExecutor | Scope.Scope> =>
  Effect.gen(function* () {
    const executor = yield* CommandExecutor.CommandExecutor
    const caps = { maxFileBytes: options.maxFileBytes ?? DEFAULT_CAPS.maxFileBytes, maxSnapshotBytes: options.maxSnapshotBytes ?? DEFAULT_CAPS.maxSnapshotBytes }
    // Outside the map of open workspaces, so that a workspace closed when idle and opened again stays off.
    const breaker = yield* makeBreaker
    const repositoryOptions = {
      dataDir: options.dataDir,
      git: options.git ?? "git",
      callTimeout: options.callTimeout ?? DEFAULT_CALL_TIMEOUT,
      stopped: breaker.trip
    }
    const watchOptions = { enabled: options.watch ?? true, maxFolders: options.maxWatchedFolders ?? DEFAULT_MAX_WATCHED_FOLDERS }
    const workspaces = yield* RcMap.make({
      lookup: (root: string) =>
        Effect.gen(function* () {
          const repository = yield* openRepository(executor, repositoryOptions, root)
          const workspace: Workspace = {
            repository,
            caps,
            lock: yield* Effect.makeSemaphore(1),
            head: yield* Ref.make<Head | undefined>(undefined),
            watch: yield* watchWorkspace(repository, watchOptions),
            lastRead: yield* Ref.make<LastRead | undefined>(undefined)
          }
          return workspace
        }),
      idleTimeToLive: options.idleTimeToLive ?? Duration.minutes(1)
    })

    /**
     * Holds the workspace for `use`, alone when `use` writes the index (and so reads the work
     * tree): then only once the breaker allows, checked after the lock so that calls queued
     * behind a stopped one fail at once instead of waiting in turn. A failed open is not
     * kept, so the next call tries again; an interrupted one is dropped too, which stops the
     * opening (it runs in the map's fiber, not the caller's) and kills its git process.
     */
    const withWorkspace = <A>(workspaceRoot: string, exclusive: boolean, use: (workspace: Workspace) => Effect.Effect<A, CheckpointError>) =>
      Effect.flatMap(realWorkspace(workspaceRoot), (root) => {
        const forget = RcMap.invalidate(workspaces, root)
        return Effect.scoped(
          Effect.flatMap(RcMap.get(workspaces, root).pipe(Effect.tapError(() => forget), Effect.onInterrupt(() => forget)), (workspace) =>
            exclusive
              ? workspace.lock.withPermits(1)(Effect.zipRight(breaker.guard(root), clearingStaleLock(workspace.repository, use(workspace))))
              : use(workspace)
          )
        )
      })

    return {
      snapshot: (workspaceRoot) => withWorkspace(workspaceRoot, true, snapshot).pipe(Effect.withSpan("Checkpoints.snapshot")),
      drift: (workspaceRoot, treeId) =>
        withWorkspace(workspaceRoot, true, (workspace) =>
          Effect.flatMap(checkedTreeId(workspace.repository, treeId), (tree) => drift(workspace, tree)).pipe(Effect.ensuring(forgetRead(workspace)))
        ).pipe(Effect.withSpan("Checkpoints.drift")),
      restore: (workspaceRoot, treeId, paths) =>
        withWorkspace(workspaceRoot, true, (workspace) =>
          Effect.flatMap(checkedTreeId(workspace.repository, treeId), (tree) => restore(workspace, tree, paths)).pipe(Effect.ensuring(forgetRead(workspace)))
        ).pipe(Effect.withSpan("Checkpoints.restore")),
      changedBetween: (workspaceRoot, from, to) =>
        withWorkspace(workspaceRoot, false, (workspace) =>
          Effect.flatMap(
            Effect.all([checkedTreeId(workspace.repository, from), checkedTreeId(workspace.repository, to)]),
            ([a, b]) => pathsBetween(workspace.repository, a, b)
          )
        ).pipe(Effect.withSpan("Checkpoints.changedBetween"))
    }
  })

export const layer = (options: CheckpointsOptions): Layer.Layer<Checkpoints, never, CommandExecutor.CommandExecutor> =>
  Layer.scoped(Checkpoints, make(options))
