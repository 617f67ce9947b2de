import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { DecidedBy, PermissionMode, PermissionScope, ProjectTrust, RuleRef } from "../domain/permissions.js"
import type { PreparedCall } from "./ToolRouter.js"

/** One call to judge: the tool, the session's mode, and the call's facts from the ToolRouter. */
export interface PermissionCheck {
  readonly sessionId: string
  readonly workspaceRoot: string
  readonly tool: string
  readonly mode: PermissionMode
  readonly call: PreparedCall
  /** The call's input as the model sent it: what an answer about a tool without paths or command remembers. */
  readonly input?: unknown
}

export type Verdict =
  | {
      readonly decision: "allow" | "deny"
      readonly by: Exclude<DecidedBy, "user" | "policy">
      readonly scope: PermissionScope
      readonly rule?: RuleRef
      readonly reason: string
    }
  | {
      readonly decision: "ask"
      readonly rule?: RuleRef
      readonly reason: string
      /**
       * Only a person may answer: a protected path, a command that would run unconfined, or an
       * ask rule. A hook may turn the other asks (the defaults) into an allow; never these.
       */
      readonly firm?: boolean
    }

export class PermissionStoreError extends Schema.TaggedError<PermissionStoreError>()("PermissionStoreError", {
  message: Schema.String
}) {}

/** A trust request for content that is no longer what the file holds (it changed since it was shown). */
export class ProjectTrustError extends Schema.TaggedError<ProjectTrustError>()("ProjectTrustError", {
  message: Schema.String
}) {}

/**
 * Decides allow / deny / ask for every tool call, whatever its origin. Precedence, first
 * that applies: `bypass` mode; `plan` mode denies anything but reads; deny rules (user
 * file, then project file); protected paths ask; a command that would run outside an
 * unavailable sandbox asks; ask rules; allow rules (a project's only once trusted);
 * approvals remembered for the session or "always"; `accept-edits` allows writes inside the
 * workspace; defaults (reads inside the workspace allowed, everything else asks).
 */
export interface PermissionEngineShape {
  readonly decide: (check: PermissionCheck) => Effect.Effect<Verdict>
  /**
   * Remembers a person's answer for the rest of the session, or persists it ("always"),
   * scoped to what was asked: the analysed command prefixes, the paths (or the globs in
   * `paths`, when they cover the asked paths), or the exact input. False when the call holds
   * nothing that can be named safely (an unreadable command line): then nothing is remembered.
   */
  readonly remember: (
    check: PermissionCheck,
    decision: "allow" | "deny",
    scope: Exclude<PermissionScope, "once">,
    paths?: ReadonlyArray<string>
  ) => Effect.Effect<boolean, PermissionStoreError>
  /** Whether the workspace's own rules file is trusted, for the content it holds now. */
  readonly projectTrust: (workspaceRoot: string) => Effect.Effect<ProjectTrust, PermissionStoreError>
  /**
   * Trusts the workspace's rules file as it is now. `sha256` is the hash the person saw (from
   * `projectTrust`); when the file changed since, nothing is trusted.
   */
  readonly trustProject: (
    workspaceRoot: string,
    sha256: string,
    by: string
  ) => Effect.Effect<ProjectTrust, PermissionStoreError | ProjectTrustError>
}

export class PermissionEngine extends Context.Tag("custom-agent/PermissionEngine")<PermissionEngine, PermissionEngineShape>() {}
