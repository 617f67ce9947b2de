import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { RiskClass } from "../../domain/tools.js"
import { type ApprovalAnswer, Approvals } from "../../services/Approvals.js"

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

export const answerFor = (policy: ApprovalPolicy, risk: RiskClass): ApprovalAnswer => ({
  decision: allowed[policy].includes(risk) ? "allow" : "deny",
  scope: "once",
  by: "policy",
  reason: `--approve ${policy}`
})

export const layer = (policy: ApprovalPolicy) =>
  Layer.succeed(Approvals, { ask: (request) => Effect.succeed(answerFor(policy, request.risk)) })
