import type { PermissionOption, RequestPermissionOutcome, ToolCallUpdate } from "@agentclientprotocol/sdk/unstable"
import { methods } from "@agentclientprotocol/sdk/unstable"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { PermissionAnswer } from "../domain/host.js"
import type { AgentHostShape } from "../host/AgentHost.js"
import type { PendingAsksShape } from "../host/pending-asks.js"
import type { ClientPeer } from "./peer.js"

const answers: Readonly<Record<string, PermissionAnswer>> = {
  allow_once: { decision: "allow", scope: "once" },
  allow_always: { decision: "allow", scope: "always" },
  reject_once: { decision: "deny", scope: "once" },
  reject_always: { decision: "deny", scope: "always" }
}

export const permissionOptions: ReadonlyArray<PermissionOption> = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Always reject", kind: "reject_always" }
]

/** What the client's pick means to the host; an option we did not offer is refused, never allowed. */
export const answerOf = (outcome: RequestPermissionOutcome): PermissionAnswer | "cancelled" =>
  outcome.outcome === "cancelled" ? "cancelled" : (answers[outcome.optionId] ?? { decision: "deny", scope: "once" })

/** What the editor is offered for one kind of question, and what each pick means to the host. */
export interface ClientQuestion {
  readonly options: ReadonlyArray<PermissionOption>
  readonly answerOf: (outcome: RequestPermissionOutcome) => PermissionAnswer | "cancelled"
}

/** A tool call's question: allow or reject, once or always. */
export const toolQuestion: ClientQuestion = { options: permissionOptions, answerOf }

export interface AskDeps {
  readonly host: AgentHostShape
  readonly pending: PendingAsksShape
  readonly peer: ClientPeer
  /** Cancels the session's turn as `session/cancel` does. */
  readonly cancel: (sessionId: string) => Effect.Effect<void>
}

/**
 * Puts one of the running turn's permission questions to the person in the editor and
 * records their answer as theirs. A `cancelled` outcome, or a client that cannot answer,
 * cancels the turn. Interrupted when the turn ends: the SDK then withdraws the request
 * (`$/cancel_request`).
 */
export const askClient = (deps: AskDeps, sessionId: string, toolCall: ToolCallUpdate, question: ClientQuestion = toolQuestion): Effect.Effect<void> =>
  Effect.gen(function* () {
    const { toolCallId } = toolCall
    // The host holds the question right after it records it: ask only about a question that can be answered.
    yield* deps.pending.list(sessionId).pipe(
      Effect.repeat({ until: (open) => open.some((q) => q.toolCallId === toolCallId), schedule: Schedule.spaced("5 millis") })
    )
    const response = yield* deps.peer.request(methods.client.session.requestPermission, { sessionId, toolCall, options: [...question.options] }).pipe(Effect.either)
    if (response._tag === "Left") {
      yield* Effect.logWarning(`the client did not answer the permission question on ${toolCallId}; cancelling the turn`, response.left.message)
      return yield* deps.cancel(sessionId)
    }
    const answer = question.answerOf(response.right.outcome)
    if (answer === "cancelled") return yield* deps.cancel(sessionId)
    yield* deps.host.respondPermission(sessionId, toolCallId, { ...answer, client: "acp" }).pipe(
      Effect.catchTag("PermissionNotPending", (error) => Effect.logDebug(error.message)),
      // Only a cluster's delivery fails this way; the turn then goes on waiting for an answer.
      Effect.catchAll((error) => Effect.logWarning(`the answer on ${toolCallId} did not reach the session`, error))
    )
  })
