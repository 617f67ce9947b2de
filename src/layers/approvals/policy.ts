import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { RiskClass } from "../../domain/tools.js"
import { type ApprovalAnswer, type ApprovalRequest, Approvals } from "../../services/Approvals.js"

/**
 * Headless answers to "ask": never a silent allow. Every answer is recorded as `by: policy`
 * with the policy's name, so the audit trail shows a policy, not a person, allowed it.
 */
export const ApprovalPolicy = Schema.Literal("deny", "allow-reads", "allow-edits", "allow-all")
export type ApprovalPolicy = typeof ApprovalPolicy.Type

const allowed: Record<ApprovalPolicy, ReadonlyArray<RiskClass>> = {
  deny: [],
  "allow-reads": ["read"],
  "allow-edits": ["read", "write"],
  "allow-all": ["read", "write", "execute", "network"]
}

/**
 * A policy answers by the call's risk (and says no to every plan), but short of `allow-all` never yes to a firm question
 * (a protected path, an ask rule, an unconfined command) or to a call outside the workspace:
 * `allow-edits` means edits of the project, not of the agent's rules or the user's files.
 */
export const answerFor = (policy: ApprovalPolicy, request: Pick<ApprovalRequest, "risk" | "firm" | "outsideWorkspace" | "plan">): ApprovalAnswer => {
  // A plan is approved by a person, who also picks the mode: no policy says yes to one, allow-all included.
  if (request.plan !== undefined) {
    return { decision: "deny", scope: "once", by: "policy", reason: `--approve ${policy} never approves a plan: only a person can (at a terminal, on the web page or in an editor)` }
  }
  const beyond = policy !== "allow-all" && (request.firm || request.outsideWorkspace)
  return {
    decision: !beyond && allowed[policy].includes(request.risk) ? "allow" : "deny",
    scope: "once",
    by: "policy",
    reason: beyond
      ? `--approve ${policy} answers only ordinary calls inside the workspace, not one ${request.outsideWorkspace ? "that reaches outside it" : "that a person must answer (a protected path, an ask rule, an unconfined command)"}`
      : `--approve ${policy}`
  }
}

export const layer = (policy: ApprovalPolicy) => Layer.succeed(Approvals, { ask: (request) => Effect.succeed(answerFor(policy, request)) })
