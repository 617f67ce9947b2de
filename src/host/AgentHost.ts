import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { withAttachments } from "../core/attachments.js"
import { forEachPulled } from "../core/for-each-pulled.js"
import { SessionEngine } from "../core/SessionEngine.js"
import { type EngineError, TurnInProgress } from "../domain/errors.js"
import type { AgentEvent, MessageMode, QueuedMessage } from "../domain/events.js"
import {
  type HostFrame,
  type Inbox,
  InvalidSessionLog,
  type PermissionAnswer,
  type PermissionNotPending,
  type PromptReceipt,
  type QueueAction,
  QueuedMessageNotFound,
  SessionExists,
  type SessionListItem,
  type SessionView,
  SubscriberLagged
} from "../domain/host.js"
import { sessionLogProblem } from "../domain/session-log.js"
import type { PermissionMode } from "../domain/permissions.js"
import { EventStore } from "../services/EventStore.js"
import { type McpError, McpHub } from "../services/McpHub.js"
import { Ids } from "../services/Ids.js"
import { Fanout } from "./fanout.js"
import { PendingAsks } from "./pending-asks.js"

export interface PromptRequest {
  readonly sessionId: string
  readonly content: string
  /** Resource URIs (served by the session's MCP servers) whose text is attached to the message. */
  readonly attachments?: ReadonlyArray<string>
  readonly mode?: MessageMode
  /** Made the session's mode first when it is another (recorded, also for a queued message); left out, the session's holds. */
  readonly permissionMode?: PermissionMode
  /** Which client sends it, recorded as who changed the mode: `rpc`, `acp`, `cli`, `web`, ... (default `library`). */
  readonly client?: string
}

/**
 * Many sessions in one process, behind one API. At most one turn runs per session (an
 * atomic claim); a prompt on a busy session waits in its inbox, durably; every committed
 * event reaches subscribers after the store has it; clients resume from any sequence.
 */
export interface AgentHostShape {
  readonly createSession: (input: { readonly cwd: string; readonly client: string; readonly title?: string }) => Effect.Effect<SessionView, EngineError>
  readonly listSessions: Effect.Effect<ReadonlyArray<SessionListItem>, EngineError>
  readonly getSession: (sessionId: string) => Effect.Effect<SessionView, EngineError>
  /** Starts a turn (returning once its user message is durable) or queues the message. */
  readonly prompt: (request: PromptRequest) => Effect.Effect<PromptReceipt, EngineError | McpError>
  readonly cancel: (sessionId: string) => Effect.Effect<void, EngineError>
  /** Makes `mode` the session's permission mode, durably; a running turn checks its next tool call under it. */
  readonly setMode: (sessionId: string, mode: PermissionMode, by: string) => Effect.Effect<void, EngineError>
  readonly respondPermission: (sessionId: string, toolCallId: string, answer: PermissionAnswer) => Effect.Effect<void, PermissionNotPending>
  readonly editQueue: (sessionId: string, messageId: string, action: QueueAction) => Effect.Effect<void, EngineError | QueuedMessageNotFound>
  /** A baseline, then every event after `afterSequence`, then live frames: no gap, no duplicate. */
  readonly subscribe: (sessionId: string, afterSequence: number) => Stream.Stream<HostFrame, EngineError | SubscriberLagged>
  readonly exportSession: (sessionId: string) => Stream.Stream<AgentEvent, EngineError>
  /** Compacts the session's completed turns now (`/compact`); refused while a turn runs. */
  readonly compact: (sessionId: string) => Effect.Effect<Option.Option<AgentEvent>, EngineError>
  /** Writes a whole exported session, all or nothing, after checking it is one valid log. */
  readonly importSession: (events: ReadonlyArray<AgentEvent>) => Effect.Effect<{ readonly sessionId: string; readonly events: number }, EngineError | InvalidSessionLog | SessionExists>
}

export class AgentHost extends Context.Tag("custom-agent/AgentHost")<AgentHost, AgentHostShape>() {}

interface Actor {
  /** Guards `running` and inbox changes: prompt, queue edits, steering and turn hand-over. */
  readonly lock: Effect.Semaphore
  running: boolean
}

export const make = Effect.gen(function* () {
  const engine = yield* SessionEngine
  const store = yield* EventStore
  const ids = yield* Ids
  const fanout = yield* Fanout
  const pending = yield* PendingAsks
  const mcp = yield* McpHub
  const turns = yield* FiberSet.make()
  const actors = yield* Ref.make(new Map<string, Actor>())

  const actorOf = (sessionId: string) =>
    Ref.modify(actors, (map) => {
      const found = map.get(sessionId)
      if (found !== undefined) return [found, map] as const
      const actor: Actor = { lock: Effect.unsafeMakeSemaphore(1), running: false }
      return [actor, new Map(map).set(sessionId, actor)] as const
    })

  const setRunning = (sessionId: string, actor: Actor, running: boolean) =>
    Effect.suspend(() => {
      actor.running = running
      return fanout.deliver(sessionId, { _tag: "Status", running })
    })

  const viewOf = (sessionId: string) =>
    Effect.gen(function* () {
      const info = yield* engine.recover(sessionId)
      const actor = yield* actorOf(sessionId)
      const { header } = info
      const view: SessionView = {
        sessionId,
        cwd: header.cwd,
        client: header.client,
        createdAt: header.createdAt,
        lastSequence: info.lastSequence,
        running: actor.running,
        inbox: info.inbox,
        permissionMode: info.mode,
        pendingPermissions: yield* pending.list(sessionId),
        ...(header.title === undefined ? {} : { title: header.title }),
        ...(header.model === undefined ? {} : { model: header.model })
      }
      return view
    })

  const writeInbox = (sessionId: string, inbox: Inbox) =>
    engine.record(sessionId, { type: "inbox.updated", payload: { nextTurn: inbox.nextTurn, nextStep: inbox.nextStep } })

  const inboxOf = (sessionId: string) => Effect.map(engine.getSession(sessionId), (info) => info.inbox)

  /** Steering: the engine takes what waits in `nextStep` at each step boundary. */
  const takeSteering = (sessionId: string, actor: Actor) =>
    actor.lock.withPermits(1)(
      Effect.gen(function* () {
        const inbox = yield* inboxOf(sessionId)
        if (inbox.nextStep.length === 0) return []
        yield* writeInbox(sessionId, { nextTurn: inbox.nextTurn, nextStep: [] })
        return inbox.nextStep.map((m) => m.content)
      })
    ).pipe(
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning(`steering messages of ${sessionId} stay queued: the store failed`, error), [])
      )
    )

  /**
   * The next message to start a turn with, taken from the inbox under the lock: steering
   * that arrived too late for the last step first, then the queue. None: the session idles.
   */
  const nextFromInbox = (sessionId: string, actor: Actor) =>
    actor.lock.withPermits(1)(
      Effect.gen(function* () {
        const inbox = yield* inboxOf(sessionId)
        const waiting = [...inbox.nextStep, ...inbox.nextTurn]
        const next = waiting[0]
        if (next === undefined) {
          yield* setRunning(sessionId, actor, false)
          return Option.none<QueuedMessage>()
        }
        yield* writeInbox(sessionId, { nextTurn: waiting.slice(1), nextStep: [] })
        return Option.some(next)
      })
    ).pipe(
      Effect.catchAll((error) =>
        Effect.zipRight(Effect.logError(`session ${sessionId} stops: the store failed`, error), Effect.as(setRunning(sessionId, actor, false), Option.none()))
      )
    )

  /** Runs turns back to back while the inbox has messages; `admitted` hears of the first. */
  const drive = (
    sessionId: string,
    actor: Actor,
    first: { readonly content: string; readonly mode: MessageMode },
    admitted: Deferred.Deferred<PromptReceipt, EngineError>
  ) =>
    Effect.gen(function* () {
      let next: Option.Option<{ readonly content: string; readonly mode: MessageMode }> = Option.some(first)
      while (Option.isSome(next)) {
        const { content, mode } = next.value
        const turn = engine.runTurn({
          sessionId,
          content,
          mode,
          takeSteering: takeSteering(sessionId, actor)
        })
        const outcome = yield* Effect.either(
          forEachPulled(turn, (event) =>
            event.type === "user.message" && event.turnId !== undefined
              ? Deferred.succeed(admitted, { _tag: "Started", turnId: event.turnId, sequence: event.sequence })
              : Effect.void
          )
        )
        if (outcome._tag === "Left") {
          yield* Deferred.fail(admitted, outcome.left)
          yield* Effect.logError(`turn of ${sessionId} failed`, outcome.left)
        }
        next = Option.map(yield* nextFromInbox(sessionId, actor), (m) => ({ content: m.content, mode: "queue" as const }))
      }
    })

  const prompt = (request: PromptRequest): Effect.Effect<PromptReceipt, EngineError | McpError> =>
    Effect.gen(function* () {
      yield* engine.recover(request.sessionId)
      const content = yield* withAttachments(mcp, request.sessionId, request.content, request.attachments ?? [])
      const actor = yield* actorOf(request.sessionId)
      const mode = request.mode ?? "queue"
      const admitted = yield* Deferred.make<PromptReceipt, EngineError>()
      const queued = yield* actor.lock.withPermits(1)(
        Effect.gen(function* () {
          // The mode belongs to the session: recorded before the turn this prompt starts, or now
          // for a queued message (the running turn then checks its next tool call under it too).
          if (request.permissionMode !== undefined) yield* engine.setMode(request.sessionId, request.permissionMode, request.client ?? "library")
          if (!actor.running) {
            yield* setRunning(request.sessionId, actor, true)
            yield* FiberSet.run(turns, drive(request.sessionId, actor, { content, mode: "queue" }, admitted))
            return Option.none<PromptReceipt>()
          }
          const messageId = yield* ids.make("msg")
          const inbox = yield* inboxOf(request.sessionId)
          const message = { id: messageId, content }
          yield* writeInbox(
            request.sessionId,
            mode === "steer" ? { nextTurn: inbox.nextTurn, nextStep: [...inbox.nextStep, message] } : { nextTurn: [...inbox.nextTurn, message], nextStep: inbox.nextStep }
          )
          return Option.some<PromptReceipt>({ _tag: "Queued", messageId, mode })
        })
      )
      if (Option.isSome(queued)) return queued.value
      return yield* Deferred.await(admitted)
    })

  const editQueue = (sessionId: string, messageId: string, action: QueueAction) =>
    Effect.gen(function* () {
      const actor = yield* actorOf(sessionId)
      yield* actor.lock.withPermits(1)(
        Effect.gen(function* () {
          const inbox = yield* inboxOf(sessionId)
          const inTurn = inbox.nextTurn.find((m) => m.id === messageId)
          const inStep = inbox.nextStep.find((m) => m.id === messageId)
          const found = inTurn ?? inStep
          if (found === undefined) return yield* new QueuedMessageNotFound({ sessionId, messageId })
          const without = (list: ReadonlyArray<QueuedMessage>) => list.filter((m) => m.id !== messageId)
          const replace = (list: ReadonlyArray<QueuedMessage>, content: string) =>
            list.map((m) => (m.id === messageId ? { id: m.id, content } : m))
          switch (action._tag) {
            case "Edit":
              return yield* writeInbox(sessionId, { nextTurn: replace(inbox.nextTurn, action.content), nextStep: replace(inbox.nextStep, action.content) })
            case "Delete":
              return yield* writeInbox(sessionId, { nextTurn: without(inbox.nextTurn), nextStep: without(inbox.nextStep) })
            case "Promote":
              if (inStep !== undefined) return
              return yield* writeInbox(sessionId, { nextTurn: without(inbox.nextTurn), nextStep: [...inbox.nextStep, found] })
          }
        })
      )
    })

  const subscribe = (sessionId: string, afterSequence: number): Stream.Stream<HostFrame, EngineError | SubscriberLagged> =>
    Stream.unwrapScoped(
      Effect.gen(function* () {
        yield* engine.recover(sessionId)
        // Subscribe before reading anything: whatever commits from now on is in the buffer,
        // whatever committed before is in the store; overlap is skipped by sequence.
        const subscription = yield* fanout.subscribe(sessionId)
        const baseline = yield* viewOf(sessionId)
        let last = afterSequence
        const fresh = (frame: HostFrame) => frame._tag !== "Event" || frame.event.sequence > last
        const track = (frame: HostFrame) =>
          Effect.sync(() => {
            if (frame._tag === "Event") last = frame.event.sequence
          })
        const stored = store.replay(sessionId, afterSequence).pipe(Stream.map((event): HostFrame => ({ _tag: "Event", event })))
        const live = Stream.fromQueue(subscription.frames).pipe(Stream.interruptWhenDeferred(subscription.dropped))
        const lagged = Stream.fromEffect(
          Effect.flatMap(Deferred.isDone(subscription.dropped), (dropped) =>
            dropped ? Effect.fail(new SubscriberLagged({ sessionId, lastSequence: last })) : Effect.void
          )
        ).pipe(Stream.drain)
        return Stream.make<Array<HostFrame>>({ _tag: "Baseline", session: baseline }).pipe(
          Stream.concat(Stream.concat(stored, live).pipe(Stream.filter(fresh), Stream.tap(track))),
          Stream.concat(lagged)
        )
      })
    )

  const listSessions = Effect.gen(function* () {
    const summaries = yield* store.listSessions
    const running = yield* Ref.get(actors)
    return summaries.map((s): SessionListItem => ({ ...s, running: running.get(s.sessionId)?.running ?? false }))
  })

  return AgentHost.of({
    createSession: (input) =>
      Effect.flatMap(engine.createSession(input), (info) => viewOf(info.header.sessionId)),
    listSessions,
    getSession: viewOf,
    prompt,
    cancel: (sessionId) => Effect.zipRight(engine.recover(sessionId), engine.cancelTurn(sessionId)),
    setMode: (sessionId, mode, by) => Effect.zipRight(engine.recover(sessionId), Effect.asVoid(engine.setMode(sessionId, mode, by))),
    respondPermission: (sessionId, toolCallId, answer) =>
      pending.respond(sessionId, toolCallId, {
        decision: answer.decision,
        scope: answer.scope,
        by: answer.by ?? "user",
        ...(answer.reason === undefined ? {} : { reason: answer.reason })
      }),
    editQueue,
    subscribe,
    compact: (sessionId) =>
      Effect.gen(function* () {
        yield* engine.recover(sessionId)
        const actor = yield* actorOf(sessionId)
        if (actor.running) return yield* new TurnInProgress({ sessionId })
        return yield* engine.compact(sessionId)
      }),
    exportSession: (sessionId) =>
      Stream.unwrap(Effect.as(engine.recover(sessionId), store.replay(sessionId))),
    importSession: (events) =>
      Effect.gen(function* () {
        const problem = sessionLogProblem(events)
        const first = events[0]
        if (problem !== undefined || first === undefined) {
          return yield* new InvalidSessionLog({ message: `event ${(problem?.index ?? 0) + 1}: ${problem?.message ?? "empty log"}` })
        }
        if ((yield* store.head(first.sessionId))._tag === "Some") return yield* new SessionExists({ sessionId: first.sessionId })
        yield* store.appendAll(events)
        return { sessionId: first.sessionId, events: events.length }
      })
  })
})

export const layer = Layer.scoped(AgentHost, make)
