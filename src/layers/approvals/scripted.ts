import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import { type ApprovalAnswer, type ApprovalRequest, Approvals } from "../../services/Approvals.js"

/**
 * Answers from a list, in order, for tests and scripted demos. `"wait"` leaves the question
 * open until the turn is cancelled; running out of answers denies, saying so.
 */
export type ScriptedAnswer = ApprovalAnswer | "wait"

export const make = (answers: ReadonlyArray<ScriptedAnswer>) =>
  Effect.gen(function* () {
    const pending = yield* Queue.unbounded<ScriptedAnswer>()
    yield* Queue.offerAll(pending, answers)
    const asked: Array<ApprovalRequest> = []
    const ask = (request: ApprovalRequest): Effect.Effect<ApprovalAnswer> =>
      Effect.gen(function* () {
        asked.push(request)
        const next = yield* Queue.poll(pending)
        if (next._tag === "None") return { decision: "deny", scope: "once", by: "policy", reason: "no scripted answer left" }
        if (next.value === "wait") return yield* Deferred.await(yield* Deferred.make<ApprovalAnswer>())
        return next.value
      })
    return { service: Approvals.of({ ask }), asked }
  })

export const layer = (answers: ReadonlyArray<ScriptedAnswer>) =>
  Layer.effect(Approvals, Effect.map(make(answers), (made) => made.service))
