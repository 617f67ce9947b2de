import * as Effect from "effect/Effect"
import type { ApprovalAnswer, ApprovalRequest, ApprovalsShape } from "../services/Approvals.js"
import type { Draft } from "./session-actor.js"
import type { RootTurnShape } from "./root-turn.js"

/**
 * A child's permission questions go to its top-level session's clients: asked as that
 * session's (a CLI prompt, a web card, an ACP request all follow it), labelled with the
 * child's name, under an id of its own (`<child session>/<call>`, so two children's questions
 * never meet), and mirrored in that session's log as `permission.requested` / `resolved` in
 * its running turn, where those clients look. The child's own log records them as usual.
 */
export const relayedApprovals = (approvals: ApprovalsShape, root: RootTurnShape, rootSessionId: string, label: string): ApprovalsShape => ({
  ask: (request) => {
    const toolCallId = `${request.sessionId}/${request.toolCallId}`
    const summary = `[subagent ${label}] ${request.summary}`
    const mirror = (draft: Draft) =>
      root.record(draft).pipe(
        Effect.asVoid,
        Effect.catchAll((error) => Effect.logWarning(`could not mirror a question of ${request.sessionId} in ${rootSessionId}`, error))
      )
    const resolved = (answer: ApprovalAnswer) =>
      mirror({
        type: "permission.resolved",
        payload: { toolCallId, decision: answer.decision, scope: answer.scope, by: answer.by, ...(answer.reason === undefined ? {} : { reason: answer.reason }), ...(answer.client === undefined ? {} : { client: answer.client }) }
      })
    const asked: ApprovalRequest = { ...request, sessionId: rootSessionId, toolCallId, summary }
    return mirror({
      type: "permission.requested",
      payload: {
        toolCallId,
        tool: request.tool,
        risk: request.risk,
        summary,
        ...(request.detail === undefined ? {} : { detail: request.detail }),
        // What a lasting answer would store, as the child's engine computed it: the top-level session's clients show it and offer its choices.
        ...(request.lasting === undefined ? {} : { lasting: request.lasting })
      }
    }).pipe(
      Effect.zipRight(approvals.ask(asked)),
      Effect.tap(resolved),
      Effect.onInterrupt(() =>
        mirror({ type: "permission.resolved", payload: { toolCallId, decision: "cancelled", scope: "once", by: "user", reason: "the turn was cancelled while waiting" } })
      )
    )
  }
})
