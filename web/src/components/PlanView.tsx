import { answerClientLabel } from "../../../src/domain/answer-client.js"
import type { Api } from "../api.js"
import type { PlanAsk, PlanResolution } from "../timeline.js"
import { Markdown } from "./Markdown.js"
import { PlanCard } from "./PlanCard.js"

/** How the plan's question ended, in words: "approved by user, on the web: carried out in accept-edits mode". */
export const resolutionText = (r: PlanResolution): string => {
  const where = r.by === "user" ? answerClientLabel(r.client) : undefined
  const who = `${r.by}${where === undefined ? "" : `, ${where}`}`
  switch (r.decision) {
    case "approved":
      return `Plan approved by ${who}: carried out in ${r.mode ?? "default"} mode`
    case "cancelled":
      return `Plan question withdrawn${r.reason === undefined ? "" : `: ${r.reason}`}`
    case "rejected":
      return `${r.by === "policy" ? "Plan not approved" : "Plan sent back"} by ${who} (the session stays in plan mode)${r.reason === undefined ? "" : `: ${r.reason}`}`
  }
}

/** A proposed plan: its Markdown (rendered like model output, so no HTML of the model's gets through), then its question or how it ended. */
export const PlanView = ({ api, sessionId, toolCallId, plan }: { readonly api: Api; readonly sessionId: string; readonly toolCallId: string; readonly plan: PlanAsk }) => (
  <div class="plan">
    <Markdown text={plan.text} streaming={false} />
    {plan.open ? <PlanCard api={api} sessionId={sessionId} toolCallId={toolCallId} /> : null}
    {plan.resolution === undefined ? null : (
      <p class={`plan-resolution ${plan.resolution.decision}`}>
        {resolutionText(plan.resolution)}
        {plan.resolution.note === undefined ? null : (
          <>
            {": "}
            <q>{plan.resolution.note}</q>
          </>
        )}
      </p>
    )}
  </div>
)
