import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { EngineError, EventStoreError, StoreFailure, TurnInProgress } from "../domain/errors.js"
import type { AgentEvent, MessageMode, QueuedMessage } from "../domain/events.js"
import { type PromptReceipt, type QueueAction, QueuedMessageNotFound, type TurnRequest } from "../domain/host.js"
import type { RunningTurn, SessionActor } from "./session-actor.js"

type Inbox = SessionActor["state"]["inbox"]

const writeInbox = (actor: SessionActor, inbox: Inbox): Effect.Effect<AgentEvent, EventStoreError> =>
  actor.commit({ type: "inbox.updated", payload: { nextTurn: inbox.nextTurn, nextStep: inbox.nextStep } })

/** Steering: what waits in `nextStep`, taken at a step boundary of the running turn. */
export const takeSteering = (actor: SessionActor): Effect.Effect<ReadonlyArray<QueuedMessage>> =>
  // Read without the lock first: nothing waits at almost every step boundary.
  Effect.suspend(() => (actor.state.inbox.nextStep.length === 0 ? noSteering : takeWaitingSteering(actor)))

const noSteering: Effect.Effect<ReadonlyArray<QueuedMessage>> = Effect.succeed([])

const takeWaitingSteering = (actor: SessionActor): Effect.Effect<ReadonlyArray<QueuedMessage>> =>
  actor.inboxLock
    .withPermits(1)(
      Effect.suspend(() => {
        const inbox = actor.state.inbox
        if (inbox.nextStep.length === 0) return Effect.succeed([])
        return Effect.as(writeInbox(actor, { nextTurn: inbox.nextTurn, nextStep: [] }), inbox.nextStep)
      })
    )
    .pipe(
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning(`steering messages of ${actor.state.sessionId} stay queued: the store failed`, error), [])
      )
    )

/** Puts a message in the inbox of a busy session: for the next turn (`queue`) or the next step (`steer`). */
export const queueMessage = (actor: SessionActor, message: QueuedMessage, mode: MessageMode): Effect.Effect<AgentEvent, EventStoreError> =>
  Effect.suspend(() => {
    const inbox = actor.state.inbox
    return writeInbox(
      actor,
      mode === "steer" ? { nextTurn: inbox.nextTurn, nextStep: [...inbox.nextStep, message] } : { nextTurn: [...inbox.nextTurn, message], nextStep: inbox.nextStep }
    )
  })

export const editQueue = (actor: SessionActor, messageId: string, action: QueueAction): Effect.Effect<void, EngineError | QueuedMessageNotFound> =>
  actor.inboxLock.withPermits(1)(
    Effect.gen(function* () {
      const sessionId = actor.state.sessionId
      const inbox = actor.state.inbox
      const inTurn = inbox.nextTurn.find((m) => m.id === messageId)
      const inStep = inbox.nextStep.find((m) => m.id === messageId)
      const found = inTurn ?? inStep
      if (found === undefined) return yield* new QueuedMessageNotFound({ sessionId, messageId })
      const without = (list: ReadonlyArray<QueuedMessage>) => list.filter((m) => m.id !== messageId)
      const replace = (list: ReadonlyArray<QueuedMessage>, content: string) => list.map((m) => (m.id === messageId ? { id: m.id, content } : m))
      switch (action._tag) {
        case "Edit":
          return yield* Effect.asVoid(writeInbox(actor, { nextTurn: replace(inbox.nextTurn, action.content), nextStep: replace(inbox.nextStep, action.content) }))
        case "Delete":
          return yield* Effect.asVoid(writeInbox(actor, { nextTurn: without(inbox.nextTurn), nextStep: without(inbox.nextStep) }))
        case "Promote":
          if (inStep !== undefined) return
          return yield* Effect.asVoid(writeInbox(actor, { nextTurn: without(inbox.nextTurn), nextStep: [...inbox.nextStep, found] }))
      }
    })
  )

/** What a turn starts from: the message, and for a prompt's own turn maybe a step limit and the client's request id. */
/** What a turn starts from: the message, and for a prompt's own turn maybe a step limit, terms and the client's request id. */
export type TurnMessage = Pick<TurnRequest, "content" | "command" | "attached" | "maxSteps" | "terms" | "requestId">

export interface DriveServices {
  /** Claims the session's turn here and its lease in the store (TurnInProgress when either is taken). */
  readonly claim: (actor: SessionActor) => Effect.Effect<RunningTurn, TurnInProgress | StoreFailure>
  /** Lets a claim go that no turn used. */
  readonly release: (actor: SessionActor, running: RunningTurn) => Effect.Effect<void>
  /** Runs one turn on a claim to its end, releasing the claim; `admitted` hears of its user message. */
  readonly runTurn: (
    actor: SessionActor,
    running: RunningTurn,
    message: TurnMessage,
    admitted: Deferred.Deferred<PromptReceipt, EngineError>
  ) => Effect.Effect<void, EngineError>
  /** Announces that the session started or stopped working through its prompts. */
  readonly announce: (actor: SessionActor, running: boolean) => Effect.Effect<void>
}

/** A message to start a turn with, and the claim it runs on. */
export interface ClaimedMessage {
  readonly message: TurnMessage
  readonly running: RunningTurn
}

/** The turn a waiting message starts: its content, the command it came from and the blocks attached to it. */
export const turnMessage = (queued: QueuedMessage): TurnMessage => ({
  content: queued.content,
  ...(queued.command === undefined ? {} : { command: queued.command }),
  ...(queued.attached === undefined ? {} : { attached: queued.attached })
})

/** Marks the actor as working through its prompts, and says so. Callers hold the inbox lock. */
export const startDriving = (services: DriveServices, actor: SessionActor): Effect.Effect<void> =>
  Effect.suspend(() => {
    actor.driving = true
    return services.announce(actor, true)
  })

const stopDriving = (services: DriveServices, actor: SessionActor): Effect.Effect<void> =>
  Effect.suspend(() => {
    actor.driving = false
    return services.announce(actor, false)
  })

/**
 * Takes the first waiting message out of the inbox (steering that came too late for the last
 * step first, then the queue), durably; none when it is empty. Callers hold the inbox lock
 * and the turn's claim: a message leaves the inbox only for a turn that can run.
 */
export const takeNext = (actor: SessionActor): Effect.Effect<Option.Option<QueuedMessage>, EventStoreError> =>
  Effect.suspend(() => {
    const inbox = actor.state.inbox
    const waiting = [...inbox.nextStep, ...inbox.nextTurn]
    const next = waiting[0]
    if (next === undefined) return Effect.succeedNone
    return Effect.as(writeInbox(actor, { nextTurn: waiting.slice(1), nextStep: [] }), Option.some(next))
  })

/**
 * The next message to start a turn with: the turn is claimed first (here and in the store,
 * which another process sharing it may hold), then the message taken from the inbox under the
 * lock. A claim refused leaves every message where it is, in the log, for whoever runs the
 * session next. None: the session idles.
 */
const nextFromInbox = (services: DriveServices, actor: SessionActor): Effect.Effect<Option.Option<ClaimedMessage>> =>
  Effect.gen(function* () {
    // Nothing waits (the common end of a turn): the session idles without taking a lease it would
    // let go at once. Decided under the lock, so a prompt queued meanwhile finds it not driving.
    const idle = yield* actor.inboxLock.withPermits(1)(
      Effect.suspend(() =>
        actor.state.inbox.nextStep.length + actor.state.inbox.nextTurn.length === 0 ? Effect.as(stopDriving(services, actor), true) : Effect.succeed(false)
      )
    )
    if (idle) return Option.none<ClaimedMessage>()
    const claimed = yield* Effect.either(services.claim(actor))
    return yield* actor.inboxLock.withPermits(1)(
      Effect.gen(function* () {
        if (claimed._tag === "Left") {
          if (actor.state.inbox.nextStep.length + actor.state.inbox.nextTurn.length > 0) {
            yield* Effect.logWarning(`the messages waiting for ${actor.state.sessionId} stay queued: ${claimed.left.message}`)
          }
          yield* stopDriving(services, actor)
          return Option.none<ClaimedMessage>()
        }
        const running = claimed.right
        const next = yield* takeNext(actor).pipe(Effect.onError(() => services.release(actor, running)))
        if (Option.isNone(next)) {
          // The claim goes before the session is noted idle: a prompt that sees it idle can claim it.
          yield* services.release(actor, running)
          yield* stopDriving(services, actor)
          return Option.none<ClaimedMessage>()
        }
        return Option.some<ClaimedMessage>({ message: turnMessage(next.value), running })
      })
    )
  }).pipe(
    Effect.catchAll((error) =>
      Effect.zipRight(
        Effect.logError(`session ${actor.state.sessionId} stops: the store failed`, error),
        Effect.as(actor.inboxLock.withPermits(1)(stopDriving(services, actor)), Option.none())
      )
    )
  )

/**
 * Runs turns back to back while the inbox has messages, each on its own claim; `admitted`
 * hears of the first (or of its failure). The caller has claimed the first turn and started
 * driving under the inbox lock.
 */
export const drive = (
  services: DriveServices,
  actor: SessionActor,
  first: ClaimedMessage,
  admitted: Deferred.Deferred<PromptReceipt, EngineError>
): Effect.Effect<void> =>
  Effect.gen(function* () {
    let next: Option.Option<ClaimedMessage> = Option.some(first)
    while (Option.isSome(next)) {
      const outcome = yield* Effect.either(services.runTurn(actor, next.value.running, next.value.message, admitted))
      if (outcome._tag === "Left") {
        yield* Deferred.fail(admitted, outcome.left)
        yield* Effect.logError(`turn of ${actor.state.sessionId} failed`, outcome.left)
      }
      next = yield* nextFromInbox(services, actor)
    }
  }).pipe(Effect.ensuring(Deferred.interrupt(admitted)))
