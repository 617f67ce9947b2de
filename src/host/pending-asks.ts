import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { AnswerNotOffered, type PendingPermission, PermissionNotPending } from "../domain/host.js"
import { chosenCover } from "../domain/lasting-choices.js"
import type { AnswerCover } from "../domain/permissions.js"
import { type ApprovalAnswer, Approvals } from "../services/Approvals.js"

interface Waiting {
  readonly question: PendingPermission
  /** What a lasting answer would store, as the question showed it: a chosen cover must be within its offers. */
  readonly lasting: AnswerCover | undefined
  readonly answer: Deferred.Deferred<ApprovalAnswer>
}

/** Why an answer cannot settle this question, or none: a chosen cover goes only with a lasting answer, within what was offered. */
const refusal = (waiting: Waiting, answer: ApprovalAnswer): string | undefined => {
  const chosen = answer.cover
  if (chosen === undefined) return undefined
  if (answer.scope === "once") return "a chosen cover goes with a session or always answer, not once"
  if (waiting.lasting === undefined) return "the question offered nothing to remember"
  const within = chosenCover(waiting.lasting, chosen)
  return Either.isLeft(within) ? within.left : undefined
}

/**
 * The permission questions running turns wait on, answerable by any client through the
 * host. A question leaves when answered or when its turn stops waiting (cancel).
 */
export interface PendingAsksShape {
  readonly list: (sessionId: string) => Effect.Effect<ReadonlyArray<PendingPermission>>
  /** How many questions wait, by session (only sessions with at least one): what the session list marks. */
  readonly counts: Effect.Effect<ReadonlyMap<string, number>>
  /** Refused (AnswerNotOffered, the question still waits) when the answer chooses a cover the question did not offer. */
  readonly respond: (sessionId: string, toolCallId: string, answer: ApprovalAnswer) => Effect.Effect<void, PermissionNotPending | AnswerNotOffered>
}

export class PendingAsks extends Context.Tag("custom-agent/host/PendingAsks")<PendingAsks, PendingAsksShape>() {}

export const make = Effect.sync(() => {
  const waiting = new Map<string, Map<string, Waiting>>()

  const forget = (sessionId: string, toolCallId: string) => {
    const questions = waiting.get(sessionId)
    questions?.delete(toolCallId)
    if (questions?.size === 0) waiting.delete(sessionId)
  }

  const approvals = Approvals.of({
    ask: (request) =>
      Effect.gen(function* () {
        const answer = yield* Deferred.make<ApprovalAnswer>()
        const question: PendingPermission = {
          toolCallId: request.toolCallId,
          turnId: request.turnId,
          tool: request.tool,
          risk: request.risk,
          summary: request.summary,
          input: request.input,
          ...(request.detail === undefined ? {} : { detail: request.detail }),
          ...(request.plan === undefined ? {} : { plan: request.plan })
        }
        const questions = waiting.get(request.sessionId) ?? new Map<string, Waiting>()
        questions.set(request.toolCallId, { question, lasting: request.lasting, answer })
        waiting.set(request.sessionId, questions)
        return yield* Deferred.await(answer).pipe(Effect.ensuring(Effect.sync(() => forget(request.sessionId, request.toolCallId))))
      })
  })

  const pending = PendingAsks.of({
    list: (sessionId) => Effect.sync(() => [...(waiting.get(sessionId)?.values() ?? [])].map((w) => w.question)),
    counts: Effect.sync(() => new Map([...waiting].map(([sessionId, questions]) => [sessionId, questions.size]))),
    respond: (sessionId, toolCallId, answer) =>
      Effect.suspend((): Effect.Effect<void, PermissionNotPending | AnswerNotOffered> => {
        const found = waiting.get(sessionId)?.get(toolCallId)
        if (found === undefined) return Effect.fail(new PermissionNotPending({ sessionId, toolCallId }))
        // Checked before the question is taken: a refused answer leaves it for a proper one.
        const refused = refusal(found, answer)
        if (refused !== undefined) return Effect.fail(new AnswerNotOffered({ sessionId, toolCallId, reason: refused }))
        forget(sessionId, toolCallId)
        return Deferred.succeed(found.answer, answer).pipe(
          Effect.flatMap((settled) => (settled ? Effect.void : Effect.fail(new PermissionNotPending({ sessionId, toolCallId }))))
        )
      })
  })
  return { approvals, pending }
})

/** Both faces of one registry: the engine asks through Approvals, clients answer through PendingAsks. */
export const layer = Layer.effectContext(
  Effect.map(make, ({ approvals, pending }) => Context.make(Approvals, approvals).pipe(Context.add(PendingAsks, pending)))
)
