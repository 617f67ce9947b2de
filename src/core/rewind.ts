import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { EventStoreError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import { RewindDrift, type RewindResult, type RewindTarget, RewindUnavailable, type RewindWhat } from "../domain/rewind.js"
import type { CheckpointsShape } from "../services/Checkpoints.js"
import { type CheckpointRef, currentFiles, type FileState, filesAt, type Overlay, type RewindHistory } from "./rewind-history.js"
import type { Draft } from "./session-actor.js"
import { CurrentSession } from "./current-turn.js"

export interface RewindRequest {
  readonly to: RewindTarget
  /** Default: both. */
  readonly what?: RewindWhat
  /** One workspace-relative file to restore (files only). */
  readonly path?: string
  /** Overwrite files changed since the session's last checkpoint by something other than the agent. */
  readonly force?: boolean
  /** Which client: `cli`, `web`, `rpc`, ... */
  readonly by: string
}

export interface RedoRequest {
  readonly force?: boolean
  readonly by: string
}

export type RewindError = RewindDrift | RewindUnavailable | EventStoreError

/** What a rewind or redo works from besides the session (`CurrentSession`): its log folded, and the checkpoint store if any. */
export interface RewindBasis {
  readonly checkpoints: Option.Option<CheckpointsShape>
  readonly history: RewindHistory
}

/** The basis and the session's side: its workspace, and its commits of drafts as one append (one action: see `rewind-history.ts`). */
interface RewindContext extends RewindBasis {
  readonly workspaceRoot: string
  readonly commit: (drafts: ReadonlyArray<Draft>) => Effect.Effect<ReadonlyArray<AgentEvent>, EventStoreError>
}

const contextOf = (basis: RewindBasis): Effect.Effect<RewindContext, never, CurrentSession> =>
  Effect.map(CurrentSession, (session) => ({ ...basis, workspaceRoot: session.workspaceRoot, commit: session.emitAll }))

const unavailable = (message: string) => Effect.fail(new RewindUnavailable({ message }))

/** A workspace-relative path with `/` separators, or none when it leaves the workspace. */
const workspacePath = (path: string): string | undefined => {
  const parts = path.split("/").filter((part) => part !== "" && part !== ".")
  if (path.startsWith("/") || parts.length === 0 || parts.includes("..")) return undefined
  return parts.join("/")
}

/** Where a target leaves the conversation and the files. */
interface Target {
  readonly conversationTo: number
  readonly files: FileState | undefined
}

const targetOf = (history: RewindHistory, to: RewindTarget): Effect.Effect<Target, RewindUnavailable> => {
  if (to._tag === "Sequence") {
    if (to.sequence > history.lastSequence) return unavailable(`no event ${to.sequence}: the session's last is ${history.lastSequence}`)
    return Effect.succeed({ conversationTo: to.sequence, files: filesAt(history, to.sequence) })
  }
  const turn = history.turns[to.turn - 1]
  if (turn === undefined) return unavailable(`no turn ${to.turn}: the session has ${history.turns.length}`)
  // The files as they were before the turn's first step that changed them had run.
  const anchor = turn.firstAfterTools ?? (turn.end ?? history.lastSequence) + 1
  return Effect.succeed({ conversationTo: turn.start - 1, files: filesAt(history, anchor - 1) })
}

const storeOf = (ctx: RewindContext) =>
  Option.match(ctx.checkpoints, {
    onNone: () => unavailable("no checkpoint store: this agent was started without one, so files cannot be restored"),
    onSome: (store) => Effect.succeed(store)
  })

/**
 * The paths whose files differ from what the log says they are: for each path, the tree of the
 * last restore that put it back, else the base checkpoint's.
 */
const driftOf = (store: CheckpointsShape, root: string, files: FileState | undefined) =>
  Effect.gen(function* () {
    if (files === undefined) return []
    const drifted = new Set(yield* store.drift(root, files.base.treeId))
    for (const layer of files.overlays) {
      const off = new Set(yield* store.drift(root, layer.treeId))
      for (const path of layer.paths) {
        if (off.has(path)) drifted.add(path)
        else drifted.delete(path)
      }
    }
    return [...drifted].sort()
  })

const restoredDraft = (restored: Overlay, drift: ReadonlyArray<string>, force: boolean, by: string, redo: boolean): Draft => ({
  type: "checkpoint.restored",
  payload: { treeId: restored.treeId, checkpointSequence: restored.sequence, paths: restored.paths, drift, forced: force, by, redo }
})

interface FilesRestored {
  readonly drafts: ReadonlyArray<Draft>
  readonly paths: ReadonlyArray<string>
  readonly drift: ReadonlyArray<string>
  readonly checkpointSequence: number
}

/**
 * Checks for drift (refused without `force`), then makes the files match `target`: its base,
 * then each later layer's paths, or only `path` from the tree that holds it. A restore that
 * fails records what the ones before it did, then fails.
 */
const restoreFiles = (
  ctx: RewindContext,
  target: FileState,
  options: { readonly path?: string; readonly force: boolean; readonly by: string; readonly redo: boolean }
): Effect.Effect<FilesRestored, RewindError> =>
  Effect.gen(function* () {
    const store = yield* storeOf(ctx)
    const root = ctx.workspaceRoot
    const { path, force, by, redo } = options
    const fail = (doing: string) => (error: { readonly message: string }) => new RewindUnavailable({ message: `${doing} failed: ${error.message}`, cause: error })
    const drifted = yield* driftOf(store, root, currentFiles(ctx.history)).pipe(Effect.mapError(fail("checking the files for changes")))
    const drift = path === undefined ? drifted : drifted.filter((p) => p === path)
    if (drift.length > 0 && !force) return yield* new RewindDrift({ paths: drift })
    const steps: ReadonlyArray<{ readonly from: CheckpointRef; readonly paths?: ReadonlyArray<string> }> =
      path === undefined
        ? [{ from: target.base }, ...target.overlays.map((layer) => ({ from: layer, paths: layer.paths }))]
        : [{ from: target.overlays.findLast((layer) => layer.paths.includes(path)) ?? target.base, paths: [path] }]
    const drafts: Array<Draft> = []
    const written = new Set<string>()
    for (const step of steps) {
      const done = yield* Effect.either(store.restore(root, step.from.treeId, step.paths))
      if (done._tag === "Left") {
        if (drafts.length > 0) yield* ctx.commit(drafts)
        return yield* fail("restoring the files")(done.left)
      }
      for (const p of done.right.paths) written.add(p)
      // The drift is the whole action's: named once, with its first restore.
      const named = drafts.length === 0 ? drift : []
      drafts.push(restoredDraft({ sequence: step.from.sequence, treeId: step.from.treeId, paths: done.right.paths }, named, force, by, redo))
    }
    return { drafts, paths: [...written].sort(), drift: force ? drift : [], checkpointSequence: steps[0]?.from.sequence ?? target.base.sequence }
  })

/** What a rewind asks of the files and the conversation. */
const partsOf = (request: RewindRequest): Effect.Effect<{ readonly files: boolean; readonly conversation: boolean; readonly path?: string }, RewindUnavailable> => {
  const what = request.what ?? (request.path === undefined ? "both" : "files")
  if (request.path === undefined) return Effect.succeed({ files: what !== "conversation", conversation: what !== "files" })
  const path = workspacePath(request.path)
  if (path === undefined) return unavailable(`${request.path} is not a path inside the workspace (give it relative to the workspace)`)
  if (what !== "files") return unavailable("a single file is restored with the files only, not the conversation")
  return Effect.succeed({ files: true, conversation: false, path })
}

/**
 * A person's rewind: the files (drift checked first), the conversation, or both, back to
 * before a turn or to a sequence, recorded as `checkpoint.restored` and `conversation.rewound`.
 * With `both`, a session that never recorded a checkpoint has only its conversation rewound.
 */
export const rewind = (basis: RewindBasis, request: RewindRequest): Effect.Effect<RewindResult, RewindError, CurrentSession> =>
  Effect.gen(function* () {
    const ctx = yield* contextOf(basis)
    const parts = yield* partsOf(request)
    const target = yield* targetOf(ctx.history, request.to)
    const neverCheckpointed = ctx.history.fileStates.length === 0
    const filesWanted = parts.files && !(neverCheckpointed && parts.conversation)
    if (filesWanted && target.files === undefined) return yield* unavailable("no checkpoint before that point: the files cannot be restored to it")
    const files =
      filesWanted && target.files !== undefined
        ? yield* restoreFiles(ctx, target.files, {
            ...(parts.path === undefined ? {} : { path: parts.path }),
            force: request.force ?? false,
            by: request.by,
            redo: false
          })
        : undefined
    const conversation: ReadonlyArray<Draft> = parts.conversation
      ? [{ type: "conversation.rewound", payload: { toSequence: target.conversationTo, by: request.by, redo: false } }]
      : []
    yield* ctx.commit([...(files?.drafts ?? []), ...conversation])
    return resultOf(files, parts.conversation ? target.conversationTo : undefined)
  })

/** Undoes the last rewind not undone yet: its files back to how they were before it, its conversation too. */
export const redo = (basis: RewindBasis, request: RedoRequest): Effect.Effect<RewindResult, RewindError, CurrentSession> =>
  Effect.gen(function* () {
    const ctx = yield* contextOf(basis)
    const action = ctx.history.actions.at(-1)
    if (action === undefined) return yield* unavailable("nothing to redo: every rewind of this session is undone already, or there was none")
    const files =
      action.filesBefore === undefined
        ? undefined
        : yield* restoreFiles(ctx, action.filesBefore, { force: request.force ?? false, by: request.by, redo: true })
    const conversationTo = action.conversation ? action.sequence - 1 : undefined
    const conversation: ReadonlyArray<Draft> =
      conversationTo === undefined ? [] : [{ type: "conversation.rewound", payload: { toSequence: conversationTo, by: request.by, redo: true } }]
    yield* ctx.commit([...(files?.drafts ?? []), ...conversation])
    return resultOf(files, conversationTo)
  })

const resultOf = (files: FilesRestored | undefined, conversationTo: number | undefined): RewindResult => ({
  restoredPaths: files?.paths ?? [],
  drift: files?.drift ?? [],
  ...(conversationTo === undefined ? {} : { conversationTo }),
  ...(files === undefined ? {} : { checkpointSequence: files.checkpointSequence })
})
