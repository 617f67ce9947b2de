import type { PermissionMode } from "../domain/permissions.js"
import { MAX_PLAN_NOTE_CHARS, PLAN_TOOL, type PlanExitMode, planModeMeaning } from "../domain/plan.js"
import type { ApprovalAnswer } from "../services/Approvals.js"

/** How a plan's question ended, as the engine records it and tells the model. */
export type PlanOutcome =
  | { readonly decision: "approved"; readonly mode: PlanExitMode; readonly client?: string }
  | { readonly decision: "rejected"; readonly by: "user"; readonly note?: string; readonly client?: string }
  | { readonly decision: "rejected"; readonly by: "policy"; readonly reason: string }

const clientOf = (answer: ApprovalAnswer) => (answer.client === undefined ? {} : { client: answer.client })

/**
 * An answer read as a plan's outcome. Only a person approves: a policy's answer is a rejection
 * whatever it says (the policies say no themselves; this holds for any Approvals adapter). A
 * person's yes without a mode (a client that does not know plans) carries it out in `default`,
 * where edits still ask.
 */
export const planOutcome = (answer: ApprovalAnswer): PlanOutcome => {
  if (answer.by === "policy") {
    const reason = answer.reason ?? "a headless policy answered"
    return { decision: "rejected", by: "policy", reason: answer.decision === "allow" ? `${reason}; a policy cannot approve a plan, only a person can` : reason }
  }
  if (answer.decision === "allow") return { decision: "approved", mode: answer.mode ?? "default", ...clientOf(answer) }
  // Bounded like the event's field, whatever the client sent.
  const note = answer.note?.trim().slice(0, MAX_PLAN_NOTE_CHARS)
  return { decision: "rejected", by: "user", ...(note === undefined || note === "" ? {} : { note }), ...clientOf(answer) }
}

/** What the model reads as the call's result. */
export const planResultText = (outcome: PlanOutcome): string => {
  if (outcome.decision === "approved") {
    return `The user approved the plan. The session left plan mode and is now in ${outcome.mode} mode (${planModeMeaning[outcome.mode]}). Carry out the plan now.`
  }
  if (outcome.by === "policy") {
    return (
      `The plan was not approved: nobody can approve it here (${outcome.reason}). The session stays in plan mode (read-only): do not try to make the changes. ` +
      "End your turn with the plan in your answer, so the user can read it."
    )
  }
  const stays = "The user did not approve the plan, so the session stays in plan mode (read-only)."
  return outcome.note === undefined
    ? `${stays} They gave no note: ask what they want changed, or revise the plan and propose it again with ${PLAN_TOOL}.`
    : `${stays} Their note:\n${outcome.note}\n\nRevise the plan accordingly and propose it again with ${PLAN_TOOL}.`
}

/** The result of a call made outside plan mode: nothing to approve, and nothing changes. */
export const notInPlanMode = (mode: PermissionMode): string =>
  `${PLAN_TOOL} works only in plan mode, and the session is in ${mode} mode: there is no plan to approve and nothing changed. Carry on with the task; your calls are checked under ${mode} mode.`
