import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { EventStoreError } from "../domain/errors.js"
import type { PermissionMode } from "../domain/permissions.js"

/** Changes the session's mode as an approved plan asks. */
export interface ModeChangeShape {
  /** Makes `mode` the session's, recorded as `session.mode_changed` by `by` (nothing when it already is). */
  readonly change: (mode: PermissionMode, by: string) => Effect.Effect<unknown, EventStoreError>
}

/**
 * Set in a session's own turn only: its `exit_plan_mode` calls are settled through it. A
 * subagent's mode is its parent's, so its turn sets none (it runs in its parent's scope, and
 * must not inherit its parent's); nothing outside a turn settles plans.
 */
export class ModeChange extends Context.Reference<ModeChange>()("custom-agent/ModeChange", {
  defaultValue: (): Option.Option<ModeChangeShape> => Option.none()
}) {}
