import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk/unstable"
import type { PermissionAnswer } from "../domain/host.js"
import type { ClientQuestion } from "./permission.js"

/**
 * A plan's question in the editor: approve it into one of the two modes an editor may carry it
 * out in, or keep planning. ACP's question carries no text, so a plan sent back has no note.
 */
const options: ReadonlyArray<PermissionOption> = [
  { optionId: "accept-edits", name: "Yes, and accept edits", kind: "allow_always" },
  { optionId: "default", name: "Yes, and ask before edits", kind: "allow_once" },
  { optionId: "plan", name: "No, keep planning", kind: "reject_once" }
]

const answers: Readonly<Record<string, PermissionAnswer>> = {
  "accept-edits": { decision: "allow", scope: "once", mode: "accept-edits" },
  default: { decision: "allow", scope: "once", mode: "default" }
}

/** A pick we did not offer keeps planning: never an approval. */
export const planAnswerOf = (outcome: RequestPermissionOutcome): PermissionAnswer | "cancelled" =>
  outcome.outcome === "cancelled" ? "cancelled" : (answers[outcome.optionId] ?? { decision: "deny", scope: "once" })

export const planQuestion: ClientQuestion = { options, answerOf: planAnswerOf }
