import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { withAttachments } from "../core/attachments.js"
import { approveMemory, deleteMemory, rejectMemory, type ReviewError } from "../core/memory-review.js"
import { SessionEngine } from "../core/SessionEngine.js"
import type { EngineError } from "../domain/errors.js"
import type { AgentEvent, MessageMode } from "../domain/events.js"
import {
  type HostFrame,
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
import { DirectPull, type DirectlyPullable } from "../services/direct-pull.js"
import { EventStore } from "../services/EventStore.js"
import { Ids } from "../services/Ids.js"
import { MemoryStore } from "../services/MemoryStore.js"
import { type McpError, McpHub } from "../services/McpHub.js"
import { Fanout } from "./fanout.js"
import { subscriptionPull } from "./subscription.js"
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
  /** Model steps the turn this message starts may take (not kept for a queued message). */
  readonly maxSteps?: number
  /** The client's id for this prompt: delivered twice, it gets the first one's receipt. */
  readonly requestId?: string
}

/**
 * Many sessions in one process, behind one API. At most one turn runs per session (an
 * atomic claim); a prompt on a busy session waits in its inbox, durably; every committed
 * event reaches subscribers after the store has it; clients resume from any sequence.
 */
export interface AgentHostShape {
  /** `sessionId`: the id the caller chose (a cluster addresses the session's entity by it); else a fresh one. */
  readonly createSession: (input: {
    readonly cwd: string
    readonly client: string
    readonly title?: string
    readonly sessionId?: string
    /**
     * Resource URIs the first prompt will attach: each is read first, and the session is not
     * created when one cannot be (so a failed try leaves no empty session behind).
     */
    readonly attachments?: ReadonlyArray<string>
  }) => Effect.Effect<SessionView, EngineError | McpError>
  readonly listSessions: Effect.Effect<ReadonlyArray<SessionListItem>, EngineError>
  readonly getSession: (sessionId: string) => Effect.Effect<SessionView, EngineError>
  /** Starts a turn (returning once its user message is durable) or queues the message. */
  readonly prompt: (request: PromptRequest) => Effect.Effect<PromptReceipt, EngineError | McpError>
  readonly cancel: (sessionId: string) => Effect.Effect<void, EngineError>
  /** Makes `mode` the session's permission mode, durably; a running turn checks its next tool call under it. */
  readonly setMode: (sessionId: string, mode: PermissionMode, by: string) => Effect.Effect<void, EngineError>
  /** Fails with an engine error only where the question travels (a cluster's delivery). */
  readonly respondPermission: (sessionId: string, toolCallId: string, answer: PermissionAnswer) => Effect.Effect<void, PermissionNotPending | EngineError>
  readonly editQueue: (sessionId: string, messageId: string, action: QueueAction) => Effect.Effect<void, EngineError | QueuedMessageNotFound>
  /** A baseline, then every event after `afterSequence`, then live frames: no gap, no duplicate. */
  readonly subscribe: (sessionId: string, afterSequence: number) => Stream.Stream<HostFrame, EngineError | SubscriberLagged>
  readonly exportSession: (sessionId: string) => Stream.Stream<AgentEvent, EngineError>
  /** The sessions working in this process now (a turn runs, or their inbox is being worked through). */
  readonly working: Effect.Effect<ReadonlySet<string>>
  /** Starts working through a waiting inbox when nothing runs (a cluster runner taking over a session). */
  readonly resume: (sessionId: string) => Effect.Effect<void, EngineError>
  /** Lets the session's actor go now; the next call loads the log again. */
  readonly evict: (sessionId: string) => Effect.Effect<void>
  /** Compacts the session's completed turns now (`/compact`); refused while a turn runs. */
  readonly compact: (sessionId: string) => Effect.Effect<Option.Option<AgentEvent>, EngineError>
  /**
   * Settles a memory candidate: the decision is recorded in the log of the session it came
   * from first, then the memory store follows.
   */
  readonly reviewMemory: (review: MemoryReview) => Effect.Effect<void, ReviewError>
  /** Forgets an approved memory, on the record of the session it came from. */
  readonly deleteMemory: (memoryId: string, by: string) => Effect.Effect<void, ReviewError>
  /** Writes a whole exported session, all or nothing, after checking it is one valid log. */
  readonly importSession: (events: ReadonlyArray<AgentEvent>) => Effect.Effect<{ readonly sessionId: string; readonly events: number }, EngineError | InvalidSessionLog | SessionExists>
}

export interface MemoryReview {
  readonly candidateId: string
  readonly decision: "approve" | "reject"
  /** Who decided: `rpc`, `cli`, `web`, ... */
  readonly by: string
  readonly reason?: string
}

export class AgentHost extends Context.Tag("custom-agent/AgentHost")<AgentHost, AgentHostShape>() {}

export const make = Effect.gen(function* () {
  const engine = yield* SessionEngine
  const store = yield* EventStore
  const fanout = yield* Fanout
  const pending = yield* PendingAsks
  const mcp = yield* McpHub
  // Memory review records its decision through the engine, with the store and ids it needs.
  const ids = yield* Ids
  const review = Effect.provide(Context.make(SessionEngine, engine).pipe(Context.add(MemoryStore, yield* MemoryStore), Context.add(Ids, ids)))

  const viewOf = (sessionId: string) =>
    Effect.gen(function* () {
      const info = yield* engine.recover(sessionId)
      const { header } = info
      const view: SessionView = {
        sessionId,
        cwd: header.cwd,
        client: header.client,
        createdAt: header.createdAt,
        lastSequence: info.lastSequence,
        running: info.running,
        inbox: info.inbox,
        permissionMode: info.mode,
        pendingPermissions: yield* pending.list(sessionId),
        ...(header.title === undefined ? {} : { title: header.title }),
        ...(header.model === undefined ? {} : { model: header.model })
      }
      return view
    })

  const createSession: AgentHostShape["createSession"] = ({ attachments, ...input }) =>
    Effect.gen(function* () {
      const sessionId = input.sessionId ?? (yield* ids.make("ses"))
      if (attachments !== undefined && attachments.length > 0) {
        // The hub's state for a session that may never exist goes with a failed check.
        yield* withAttachments(mcp, { sessionId, cwd: input.cwd }, "", attachments).pipe(Effect.tapError(() => mcp.release(sessionId)))
      }
      const info = yield* engine.createSession({ ...input, sessionId })
      return yield* viewOf(info.header.sessionId)
    })

  const prompt = (request: PromptRequest): Effect.Effect<PromptReceipt, EngineError | McpError> =>
    Effect.gen(function* () {
      const { header } = yield* engine.recover(request.sessionId)
      const content = yield* withAttachments(mcp, { sessionId: request.sessionId, cwd: header.cwd }, request.content, request.attachments ?? [])
      return yield* engine.prompt({
        sessionId: request.sessionId,
        content,
        ...(request.mode === undefined ? {} : { mode: request.mode }),
        ...(request.permissionMode === undefined ? {} : { permissionMode: request.permissionMode }),
        ...(request.client === undefined ? {} : { client: request.client }),
        ...(request.maxSteps === undefined ? {} : { maxSteps: request.maxSteps }),
        ...(request.requestId === undefined ? {} : { requestId: request.requestId })
      })
    })

  /** Opens a subscription in the scope; failing to open fails its first pull. */
  const openSubscription = (sessionId: string, afterSequence: number) =>
    Effect.gen(function* () {
      yield* engine.recover(sessionId)
      // Subscribe before reading anything: whatever commits from now on is in the buffer,
      // whatever committed before is in the store; overlap is skipped by sequence.
      const live = yield* fanout.subscribe(sessionId)
      const baseline = yield* viewOf(sessionId)
      const stored = yield* Stream.toPull(store.replay(sessionId, afterSequence))
      return subscriptionPull({ sessionId, afterSequence, baseline, stored, live })
    }).pipe(Effect.catchAll((error) => Effect.succeed(Effect.fail(Option.some<EngineError | SubscriberLagged>(error)))))

  const subscribe = (sessionId: string, afterSequence: number): DirectlyPullable<HostFrame, EngineError | SubscriberLagged, never> =>
    Object.assign(Stream.fromPull(openSubscription(sessionId, afterSequence)), {
      [DirectPull]: (scope: Scope.Scope) => Scope.extend(openSubscription(sessionId, afterSequence), scope)
    })

  const listSessions = Effect.gen(function* () {
    const summaries = yield* store.listSessions
    const running = yield* engine.runningSessions
    return summaries.map((s): SessionListItem => ({ ...s, running: running.has(s.sessionId) }))
  })

  return AgentHost.of({
    createSession,
    listSessions,
    getSession: viewOf,
    working: engine.runningSessions,
    resume: engine.resume,
    evict: engine.evict,
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
    editQueue: engine.editQueue,
    subscribe,
    compact: (sessionId) =>
      Effect.zipRight(engine.recover(sessionId), engine.compact(sessionId)),
    reviewMemory: ({ candidateId, decision, by, reason }) =>
      review(decision === "approve" ? Effect.asVoid(approveMemory(candidateId, by)) : rejectMemory(candidateId, by, reason)),
    deleteMemory: (memoryId, by) => review(Effect.asVoid(deleteMemory(memoryId, by))),
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
