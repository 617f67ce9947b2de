import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { DecidedBy, PermissionMode, PermissionScope, RuleRef } from "../domain/permissions.js"
import type { PreparedCall } from "./ToolRouter.js"

/** One call to judge: the tool, the session's mode, and the call's facts from the ToolRouter. */
export interface PermissionCheck {
  readonly sessionId: string
  readonly workspaceRoot: string
  readonly tool: string
  readonly mode: PermissionMode
  readonly call: PreparedCall
}

export type Verdict =
  | {
      readonly decision: "allow" | "deny"
      readonly by: Exclude<DecidedBy, "user" | "policy">
      readonly scope: PermissionScope
      readonly rule?: RuleRef
      readonly reason: string
    }
  | { readonly decision: "ask"; readonly rule?: RuleRef; readonly reason: string }

export class PermissionStoreError extends Schema.TaggedError<PermissionStoreError>()("PermissionStoreError", {
  message: Schema.String
}) {}

/**
 * Decides allow / deny / ask for every tool call, whatever its origin. Precedence, first
 * that applies: `bypass` mode; `plan` mode denies anything but reads; the ordered rules
 * (user file, then project file); approvals remembered for the session or "always";
 * `accept-edits` allows writes inside the workspace; defaults (reads inside the workspace
 * allowed, everything else asks).
 */
export interface PermissionEngineShape {
  readonly decide: (check: PermissionCheck) => Effect.Effect<Verdict>
  /** Remembers a person's answer for the rest of the session, or persists it ("always"). */
  readonly remember: (
    check: PermissionCheck,
    decision: "allow" | "deny",
    scope: Exclude<PermissionScope, "once">
  ) => Effect.Effect<void, PermissionStoreError>
}

export class PermissionEngine extends Context.Tag("custom-agent/PermissionEngine")<PermissionEngine, PermissionEngineShape>() {}
