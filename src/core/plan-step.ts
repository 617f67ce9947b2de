import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { EventStoreError } from "../domain/errors.js"
import { PLAN_TOOL, PlanInput } from "../domain/plan.js"
import type { ToolCall } from "../domain/tools.js"
import { notInPlanMode, type PlanOutcome, planOutcome, planResultText } from "./plan-outcome.js"
import type { ApprovalsShape } from "../services/Approvals.js"
import { CurrentTurn } from "./current-turn.js"
import type { ModeChangeShape } from "./mode-change.js"

// Strict: a `mode` or an approval the model slips into the input makes the call invalid, never heard.
const decodeInput = Schema.decodeUnknownEither(PlanInput, { errors: "all", onExcessProperty: "error" })

const describeProblems = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => `${issue.path.length === 0 ? "input" : issue.path.map(String).join(".")}: ${issue.message}`)
    .join("; ")

const resolvedPayload = (toolCallId: string, outcome: PlanOutcome) => {
  switch (outcome.decision) {
    case "approved":
      return { toolCallId, decision: outcome.decision, by: "user" as const, mode: outcome.mode, ...(outcome.client === undefined ? {} : { client: outcome.client }) }
    case "rejected":
      return outcome.by === "policy"
        ? { toolCallId, decision: outcome.decision, by: outcome.by, reason: outcome.reason }
        : {
            toolCallId,
            decision: outcome.decision,
            by: outcome.by,
            ...(outcome.client === undefined ? {} : { client: outcome.client }),
            ...(outcome.note === undefined ? {} : { note: outcome.note })
          }
  }
}

/**
 * The engine's answer to an `exit_plan_mode` call, in place of ToolRouter -> PermissionEngine
 * -> executor: the call runs nothing, and its one effect, the mode change, is the answer of the
 * person asked. So no rule, remembered answer or hook decides it; outside plan mode, or with
 * input other than a plan, it is refused before anyone is asked. In plan mode: `plan.proposed`,
 * the question (every client can answer it; a policy's answer never approves), `plan.resolved`,
 * then on approval `session.mode_changed` by the answering client, and the call's result.
 */
export const settlePlan: (approvals: ApprovalsShape, modes: ModeChangeShape, call: ToolCall) => Effect.Effect<void, EventStoreError, CurrentTurn> = Effect.fn("settlePlan")(
  function* (approvals: ApprovalsShape, modes: ModeChangeShape, call: ToolCall) {
    const turn = yield* CurrentTurn
    const { toolCallId } = call
    const result = (output: string, isError: boolean) =>
      turn.emit({ type: "tool.completed", turnId: turn.turnId, payload: { toolCallId, output, isError, durationMs: 0 } })
    const mode = turn.delegation.mode()
    if (mode !== "plan") return yield* result(notInPlanMode(mode), true)
    const input = decodeInput(call.input)
    if (Either.isLeft(input)) return yield* result(`Invalid input for ${PLAN_TOOL}: ${describeProblems(input.left)}`, true)
    const { plan } = input.right
    yield* turn.emit({ type: "plan.proposed", turnId: turn.turnId, payload: { toolCallId, plan } })
    const answer = yield* approvals
      .ask({
        sessionId: turn.sessionId,
        turnId: turn.turnId,
        toolCallId,
        tool: PLAN_TOOL,
        // Approving lets the agent change things: a client that does not know plans shows it as a write.
        risk: "write",
        summary: "approve this plan and leave plan mode",
        detail: plan,
        input: call.input,
        firm: true,
        outsideWorkspace: false,
        plan
      })
      .pipe(
        // A cancel while waiting withdraws the question, on the record; the session stays in plan mode.
        Effect.onInterrupt(() =>
          turn
            .emit({
              type: "plan.resolved",
              turnId: turn.turnId,
              payload: { toolCallId, decision: "cancelled", by: "user", reason: "the turn was cancelled while waiting" }
            })
            .pipe(Effect.catchAll((error) => Effect.logWarning("could not record the withdrawn plan question", error)))
        )
      )
    const outcome = planOutcome(answer)
    yield* turn.emit({ type: "plan.resolved", turnId: turn.turnId, payload: resolvedPayload(toolCallId, outcome) })
    // Recorded as the answering client's change, like any change of mode a person makes there.
    if (outcome.decision === "approved") yield* modes.change(outcome.mode, outcome.client ?? "user")
    yield* result(planResultText(outcome), outcome.decision !== "approved")
  }
)
