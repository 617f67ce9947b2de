import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import type { CheckpointError, NotKept } from "../../services/Checkpoints.js"
import type { Caps } from "./caps.js"
import { objectIdOf } from "./git.js"
import type { Repository } from "./repository.js"
import type { WorkspaceWatch } from "./watch.js"

/** A checkpoint commit and its tree. */
export interface Head {
  readonly commit: string
  readonly tree: string
}

/** One workspace as this process holds it while in use. */
export interface Workspace {
  readonly repository: Repository
  readonly caps: Caps
  /** One snapshot, drift or restore at a time: each of them writes the index. */
  readonly lock: Effect.Semaphore
  /** The last checkpoint seen, so that finding HEAD's tree costs no git call when nothing moved it. */
  readonly head: Ref.Ref<Head | undefined>
  /** Tells when the workspace is as `lastRead` found it, so a snapshot can skip reading it. */
  readonly watch: WorkspaceWatch
  /** What the last full read of the workspace staged, as long as nothing wrote our index since. */
  readonly lastRead: Ref.Ref<LastRead | undefined>
}

export interface LastRead {
  readonly tree: string
  readonly notKept: ReadonlyArray<NotKept>
}

/** A checkpoint commit with its tree (a commit never changes, so the one remembered holds whoever moved HEAD). */
export const headOf = (workspace: Workspace, commit: string): Effect.Effect<Head, CheckpointError> =>
  Effect.gen(function* () {
    const known = yield* Ref.get(workspace.head)
    if (known?.commit === commit) return known
    const tree = objectIdOf(yield* workspace.repository.run(["rev-parse", "--verify", "--quiet", `${commit}^{tree}`]))
    return yield* remember(workspace, { commit, tree })
  })

export const remember = (workspace: Workspace, head: Head): Effect.Effect<Head> => Effect.as(Ref.set(workspace.head, head), head)
