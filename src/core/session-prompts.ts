import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import type { EngineError } from "../domain/errors.js"
import type { PromptReceipt, TurnRequest } from "../domain/host.js"
import { EventBus } from "../services/EventBus.js"
import { Ids } from "../services/Ids.js"
import { changeMode, changeModel } from "./session-actor.js"
import { type DriveServices, drive, queueMessage, startDriving, takeNext, turnMessage } from "./session-inbox.js"
import type { SessionRegistry } from "./session-registry.js"
import type { RunClaimed, TurnSink } from "./turn-admission.js"
import type { TurnClaims } from "./turn-claims.js"

export interface SessionPrompts {
  /**
   * Starts a turn with the message and returns once its user message is durable (`Started`),
   * or, while the session works, puts it in the inbox (`Queued`).
   */
  readonly prompt: (input: TurnRequest) => Effect.Effect<PromptReceipt, EngineError>
  /** Starts working through the inbox if messages wait in it and nothing runs (a runner taking over). */
  readonly resume: (sessionId: string) => Effect.Effect<void, EngineError>
}

export interface SessionPromptsDeps {
  readonly registry: SessionRegistry
  readonly claims: TurnClaims
  readonly runClaimed: RunClaimed
}

const quiet: Pick<TurnSink, "offer" | "offerAll"> = { offer: () => Effect.void, offerAll: () => Effect.void }

/**
 * Prompts: admitted under the session's inbox lock, each either starting the session's
 * back-to-back turns (`drive` in `session-inbox.ts`) or waiting in its inbox.
 */
export const makeSessionPrompts = ({ registry, claims, runClaimed }: SessionPromptsDeps) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    const bus = yield* EventBus
    const { withActor } = registry
    const { claim, release } = claims

    const driveServices: DriveServices = {
      claim,
      release,
      runTurn: (actor, running, message, admitted) =>
        runClaimed(actor, running, { sessionId: actor.state.sessionId, mode: "queue", ...message }, { ...quiet, admitted: (receipt) => Deferred.succeed(admitted, receipt) }),
      announce: (actor, running) => Effect.zipRight(registry.noteWork(actor), bus.status(actor.state.sessionId, running))
    }

    // Turns a prompt starts run here, each holding its session's actor until its inbox is empty.
    const drives = yield* FiberSet.make()

    const prompt = (input: TurnRequest): Effect.Effect<PromptReceipt, EngineError> =>
      withActor(input.sessionId, (actor) =>
        Effect.gen(function* () {
          const admitted = yield* Deferred.make<PromptReceipt, EngineError>()
          const queued = yield* actor.inboxLock.withPermits(1)(
            Effect.gen(function* () {
              const known = input.requestId === undefined ? undefined : actor.state.prompts.get(input.requestId)
              if (known !== undefined) return Option.some(known)
              // The mode belongs to the session: recorded before the turn this prompt starts, or now
              // for a queued message (the running turn then checks its next tool call under it too).
              // So does the model: the running turn keeps the one it started with, later turns ask this one.
              const record = Effect.gen(function* () {
                if (input.permissionMode !== undefined) yield* changeMode(actor, input.permissionMode, input.client ?? "library")
                if (input.model !== undefined) yield* changeModel(actor, input.model, input.client ?? "library")
              })
              if (!actor.driving) {
                // Claimed before anything is written: a session another process runs a turn on
                // gets nothing from this one (its log stays whole, the message is refused, not lost).
                const running = yield* claim(actor)
                yield* record.pipe(Effect.onError(() => release(actor, running)))
                yield* startDriving(driveServices, actor)
                const message = {
                  content: input.content,
                  ...(input.command === undefined ? {} : { command: input.command }),
                  ...(input.attached === undefined ? {} : { attached: input.attached }),
                  ...(input.maxSteps === undefined ? {} : { maxSteps: input.maxSteps }),
                  ...(input.terms === undefined ? {} : { terms: input.terms }),
                  ...(input.requestId === undefined ? {} : { requestId: input.requestId })
                }
                yield* FiberSet.run(drives, withActor(input.sessionId, (held) => drive(driveServices, held, { message, running }, admitted)))
                return Option.none<PromptReceipt>()
              }
              yield* record
              const messageId = input.requestId ?? (yield* ids.make("msg"))
              const mode = input.mode ?? "queue"
              yield* queueMessage(
                actor,
                { id: messageId, content: input.content, ...(input.command === undefined ? {} : { command: input.command }), ...(input.attached === undefined ? {} : { attached: input.attached }) },
                mode
              )
              return Option.some<PromptReceipt>({ _tag: "Queued", messageId, mode })
            })
          )
          if (Option.isSome(queued)) return queued.value
          return yield* Deferred.await(admitted)
        })
      )

    const resume = (sessionId: string): Effect.Effect<void, EngineError> =>
      withActor(sessionId, (actor) =>
        actor.inboxLock.withPermits(1)(
          Effect.gen(function* () {
            if (yield* registry.isWorking(actor)) return
            if (actor.state.inbox.nextStep.length + actor.state.inbox.nextTurn.length === 0) return
            // The turn first, then the message: one refused (another process runs the session) stays queued.
            const running = yield* claim(actor)
            const next = yield* takeNext(actor).pipe(Effect.onError(() => release(actor, running)))
            if (Option.isNone(next)) return yield* release(actor, running)
            yield* startDriving(driveServices, actor)
            const admitted = yield* Deferred.make<PromptReceipt, EngineError>()
            const first = { message: turnMessage(next.value), running }
            yield* FiberSet.run(drives, withActor(sessionId, (held) => drive(driveServices, held, first, admitted)))
          })
        )
      )

    const sessionPrompts: SessionPrompts = { prompt, resume }
    return sessionPrompts
  })
