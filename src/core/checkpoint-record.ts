import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CheckpointTrigger } from "../domain/checkpoints.js"
import type { EventStoreError } from "../domain/errors.js"
import type { CheckpointsShape, Snapshot } from "../services/Checkpoints.js"
import { CurrentTurn } from "./current-turn.js"
import type { Draft } from "./session-actor.js"

/** Records one checkpoint of the current turn's workspace at a step boundary; nothing when there is no checkpoint store. */
export type RecordCheckpoint = (trigger: CheckpointTrigger) => Effect.Effect<void, EventStoreError, CurrentTurn>

const noCheckpoints: RecordCheckpoint = () => Effect.void

/**
 * Snapshots the workspace and records `checkpoint.recorded` when it differs from the session's
 * last checkpoint (a step's baseline, `before_tools`, also when the session has none yet). A
 * snapshot that fails never fails the turn: nothing is recorded and a warning is logged.
 */
export const checkpointRecorder = (checkpoints: Option.Option<CheckpointsShape>): RecordCheckpoint => {
  if (Option.isNone(checkpoints)) return noCheckpoints
  const store = checkpoints.value
  /** The paths that differ from the session's last checkpoint, which need not be the workspace's last snapshot (another session's). */
  const changedSince = (workspaceRoot: string, last: string | undefined, snapshot: Snapshot) => {
    if (last === undefined) return Effect.succeed<ReadonlyArray<string>>([])
    if (snapshot.parent === last) return Effect.succeed(snapshot.changed)
    return store.changedBetween(workspaceRoot, last, snapshot.treeId)
  }
  return (trigger) =>
    Effect.flatMap(CurrentTurn, (ctx) =>
      Effect.gen(function* () {
        const snapshot = yield* store.snapshot(ctx.workspaceRoot)
        const last = ctx.state.lastCheckpoint
        const unchanged = last === undefined ? trigger === "after_tools" && snapshot.changed.length === 0 : snapshot.treeId === last
        if (unchanged) return Option.none<Draft>()
        const changed = yield* changedSince(ctx.workspaceRoot, last, snapshot)
        return Option.some<Draft>({
          type: "checkpoint.recorded",
          turnId: ctx.turnId,
          payload: {
            treeId: snapshot.treeId,
            ...(last === undefined ? {} : { parent: last }),
            changed,
            notKept: snapshot.notKept,
            trigger
          }
        })
      }).pipe(
        Effect.catchTag("CheckpointError", (error) =>
          Effect.as(Effect.logWarning(`no ${trigger} checkpoint of ${error.workspaceRoot}: ${error.message}`), Option.none<Draft>())
        ),
        Effect.flatMap((draft) => (Option.isSome(draft) ? Effect.asVoid(ctx.emit(draft.value)) : Effect.void))
      )
    )
}
