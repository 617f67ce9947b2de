import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { ChosenCover } from "../domain/lasting-choices.js"
import type { AnswerCover, PermissionScope } from "../domain/permissions.js"
import type { PlanExitMode } from "../domain/plan.js"
import type { RiskClass } from "../domain/tools.js"

export interface ApprovalRequest {
  readonly sessionId: string
  readonly turnId: string
  readonly toolCallId: string
  readonly tool: string
  readonly risk: RiskClass
  readonly summary: string
  readonly detail?: string
  readonly input: unknown
  /**
   * A question only a person may answer yes to: a protected path, an ask rule someone wrote,
   * a command that would run unconfined. A headless policy short of `allow-all` denies it.
   */
  readonly firm: boolean
  /** The call reaches outside the workspace: a headless policy short of `allow-all` denies it. */
  readonly outsideWorkspace: boolean
  /** What a "session" or "always" answer would cover (shown before answering); absent: an answer holds once. */
  readonly lasting?: AnswerCover
  /**
   * Set for a plan's question (`exit_plan_mode` in plan mode): the plan as the model wrote it.
   * Only a person approves one, picking the mode; a policy's answer never does.
   */
  readonly plan?: string
}

export interface ApprovalAnswer {
  readonly decision: "allow" | "deny"
  readonly scope: PermissionScope
  /** `user` when a person answered, `policy` when a headless policy did. */
  readonly by: "user" | "policy"
  readonly reason?: string
  /** The client the answer came through (`cli`, `acp`, `rpc`, `rpc:web`), recorded on `permission.resolved`. */
  readonly client?: string
  /**
   * For a "session" or "always" answer: the globs or command prefixes a person picked to
   * remember, among those the question offered (`lastingChoices`); left out, what it showed.
   */
  readonly cover?: ChosenCover
  /** For a plan's question, with `allow`: the mode the person chose to carry it out in (`default` when left out). */
  readonly mode?: PlanExitMode
  /** For a plan's question, with `deny`: what the person wants changed, for the model. */
  readonly note?: string
}

/**
 * How an "ask" is answered: a person in the terminal, a headless policy, a client over the
 * API or ACP. The asking turn is suspended (not polling) until the answer; interrupting it
 * (a cancel) withdraws the question.
 */
export interface ApprovalsShape {
  readonly ask: (request: ApprovalRequest) => Effect.Effect<ApprovalAnswer>
}

export class Approvals extends Context.Tag("custom-agent/Approvals")<Approvals, ApprovalsShape>() {}
