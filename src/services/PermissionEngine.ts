import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ChosenCover } from "../domain/lasting-choices.js"
import type { AnswerCover, DecidedBy, PermissionMode, PermissionScope, ProjectTrust, RememberedAnswer, RuleRef } from "../domain/permissions.js"
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
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

/** A revoke of an id no remembered answer has (never remembered, or already revoked). */
export class RememberedAnswerNotFound extends Schema.TaggedError<RememberedAnswerNotFound>()("RememberedAnswerNotFound", {
  id: Schema.String,
  message: Schema.String
}) {}

/** A chosen cover for a lasting answer that names more than the question offered (`chosenCover`): nothing is remembered. */
export class CoverNotOffered extends Schema.TaggedError<CoverNotOffered>()("CoverNotOffered", {
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
 * answers remembered for the session or "always" (a remembered deny before a remembered
 * allow); `accept-edits` allows writes inside the
 * workspace; defaults (reads inside the workspace allowed, everything else asks).
 */
export interface PermissionEngineShape {
  readonly decide: (check: PermissionCheck) => Effect.Effect<Verdict>
  /**
   * What a "session" or "always" answer to this call would cover, computed now (paths where
   * they really land) so the question can show it: the analysed command prefixes, the paths
   * and how they are touched, or the exact input. None when the call holds nothing that can
   * be named safely (an unreadable command line): then an answer applies to this call only.
   */
  readonly lasting: (check: PermissionCheck) => Effect.Effect<Option.Option<AnswerCover>>
  /**
   * Remembers a person's answer for the rest of the session, or persists it ("always"),
   * covering `cover` as the question showed it (from `lasting`), or what the person chose
   * among the question's offers (`chosenCover`); a choice that names more than was offered is
   * refused (CoverNotOffered) and nothing is remembered. Returns what was stored, with its id.
   */
  readonly remember: (
    check: PermissionCheck,
    decision: "allow" | "deny",
    scope: Exclude<PermissionScope, "once">,
    cover: AnswerCover,
    chosen?: ChosenCover
  ) => Effect.Effect<RememberedAnswer, PermissionStoreError | CoverNotOffered>
  /** The remembered answers in force: "always" ones (from the store as it is now) and this process's "session" ones. */
  readonly listRemembered: (filter?: { readonly workspaceRoot?: string }) => Effect.Effect<ReadonlyArray<RememberedAnswer>, PermissionStoreError>
  /**
   * Forgets the answer with this id, and only it; the revocation (what, when, by whom) is kept
   * in the approvals file for an audit. Returns the answer revoked.
   */
  readonly revokeRemembered: (id: string, by: string) => Effect.Effect<RememberedAnswer, PermissionStoreError | RememberedAnswerNotFound>
  /**
   * Drops the answers given "for the session" in this session: its log is gone (deleted) or a
   * new one starts under its id (an import), and neither may inherit what a person allowed in
   * the old one.
   */
  readonly forgetSession: (sessionId: string) => Effect.Effect<void>
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
