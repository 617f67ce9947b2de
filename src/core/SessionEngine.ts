import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as RcMap from "effect/RcMap"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type EngineError, type EventStoreError, SessionNotFound, type StoreFailure, TurnInProgress } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { PromptReceipt, QueueAction, QueuedMessageNotFound, TurnRequest } from "../domain/host.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { RewindResult } from "../domain/rewind.js"
import { titleOf } from "../domain/session-title.js"
import { typedLine } from "../domain/slash-commands.js"
import { Approvals } from "../services/Approvals.js"
import { Checkpoints } from "../services/Checkpoints.js"
import { ContextBuilder } from "../services/ContextBuilder.js"
import { DirectPull, type DirectlyPullable } from "../services/direct-pull.js"
import { EventBus } from "../services/EventBus.js"
import { EventStore } from "../services/EventStore.js"
import { Ids } from "../services/Ids.js"
import { McpHub } from "../services/McpHub.js"
import { MemoryStore } from "../services/MemoryStore.js"
import { ModelGateway } from "../services/ModelGateway.js"
import { ModelResolver } from "../services/ModelResolver.js"
import { PermissionEngine } from "../services/PermissionEngine.js"
import { Files, ToolRouter } from "../services/ToolRouter.js"
import { Hooks } from "../services/Hooks.js"
import { Agents } from "../services/Agents.js"
import {
  childContext,
  defaultSubagentLimits,
  type Delegation,
  delegatingRouter,
  type RunChild,
  type SubagentLimits,
  Subagents,
  type SubagentsShape
} from "./subagents.js"
import { childTally } from "./child-tally.js"
import { childModel as childModelOf } from "./child-model.js"
import { agentUnavailableCode, standingDelegation } from "./standing-delegation.js"
import { relayedApprovals } from "./subagent-approvals.js"
import { recordRuns, runHooks } from "./hook-runs.js"
import { CurrentSession, type CurrentSessionShape, type CurrentTurnShape, withSession, withTurn } from "./current-turn.js"
import { checkpointRecorder } from "./checkpoint-record.js"
import { compactHistory } from "./compaction.js"
import { mailboxPull } from "./mailbox-pull.js"
import { projectRulesDrafts } from "./project-rules-record.js"
import { type RedoRequest, redo, rewind, type RewindBasis, type RewindError, type RewindRequest } from "./rewind.js"
import { addEvent, emptyRewindHistory } from "./rewind-history.js"
import { changeMode, changeModel, claimTurn, type Draft, loadActor, makeActor, type RunningTurn, type SessionActor } from "./session-actor.js"
import { type DriveServices, drive, editQueue, queueMessage, startDriving, takeNext, takeSteering, turnMessage } from "./session-inbox.js"
import { emptySessionState, type SessionHeader, type SessionState } from "./session-state.js"
import { sessionModel } from "./session-model.js"
import { runTurnBody, type TurnOutcome } from "./turn.js"
import { withPlanTool } from "./plan-tool.js"
import { outputCheck } from "./output-check.js"
import { OutputValidator } from "../services/OutputValidator.js"
import { TraceContext } from "../services/TraceContext.js"
import { turnBudget, turnSpend } from "./budget.js"
import { turnAllowance } from "./turn-allowance.js"

export type { Draft } from "./session-actor.js"
export type { RedoRequest, RewindRequest } from "./rewind.js"

export interface CreateSessionInput {
  readonly cwd: string
  readonly client: string
  readonly title?: string
  /** The model its turns ask (`anthropic/<id>`, `openai/<id>`, `scripted`); default: the engine's. */
  readonly model?: string
  /** The new session's id, when the caller chose it (a cluster addresses the session's entity by it); else a fresh one. */
  readonly sessionId?: string
}

/** A turn's request: the domain's `TurnRequest`, the shape a prompt has at every hop. */
export type RunTurnInput = TurnRequest

/** A message for a session's inbox: it starts a turn when the session is idle, else it waits. */
export type PromptMessage = RunTurnInput

export interface SessionInfo {
  readonly header: SessionHeader
  readonly lastSequence: number
  readonly running: boolean
  readonly inbox: SessionState["inbox"]
  readonly mode: PermissionMode
}

export interface SessionEngineOptions {
  /** Model steps one turn may take before it ends with `max_steps`. */
  readonly maxSteps: number
  /**
   * Share of the usable context window (the window minus the output reserve) a request may
   * fill before older turns are compacted into a summary.
   */
  readonly compactionThreshold: number
  /** Tool results longer than this many characters are cut in the model's view (whole in the log). */
  readonly toolResultChars: number
  /** Recorded in each `turn.started`: the cluster runner this engine is (`host:port`). */
  readonly runner?: string
  /**
   * How long a session nobody uses stays in memory before it is evicted (its MCP servers
   * stop); the next use loads it again from the log. Default: five minutes.
   */
  readonly sessionIdleMs?: number
  /** How deep subagents may delegate and how many run at once per turn (default 2 and 3). */
  readonly subagents?: SubagentLimits
}

export const defaultEngineOptions: SessionEngineOptions = {
  maxSteps: 50,
  compactionThreshold: 0.8,
  toolResultChars: 30_000
}

const defaultSessionIdleMs = 5 * 60_000

export interface SessionEngineShape {
  readonly createSession: (input: CreateSessionInput) => Effect.Effect<SessionInfo, EngineError>
  /**
   * Runs one turn. Every event is committed to the EventStore before it is emitted. The
   * stream ends after `turn.completed`; it fails only when the store fails (the turn is
   * then closed in the log if the store lets us). Interrupting it is the same as cancel.
   */
  readonly runTurn: (input: RunTurnInput) => Stream.Stream<AgentEvent, EngineError>
  /**
   * Starts a turn with the message and returns once its user message is durable (`Started`:
   * the turn's id and the message's sequence), or, while the session works, puts it in the
   * inbox (`Queued`). The session then runs its inbox's turns back to back; their events
   * reach the EventBus.
   */
  readonly prompt: (input: PromptMessage) => Effect.Effect<PromptReceipt, EngineError>
  readonly editQueue: (sessionId: string, messageId: string, action: QueueAction) => Effect.Effect<void, EngineError | QueuedMessageNotFound>
  /** Ends the running turn with `cancelled` and waits until it is closed; a no-op when idle. */
  readonly cancelTurn: (sessionId: string) => Effect.Effect<void>
  readonly getSession: (sessionId: string) => Effect.Effect<SessionInfo, EngineError>
  /**
   * Starts working through the session's inbox if messages wait in it and nothing runs: what
   * a cluster runner does when it takes over a session whose previous runner died.
   */
  readonly resume: (sessionId: string) => Effect.Effect<void, EngineError>
  /** Drops the session's actor now (its next use loads the log again); a turn that holds it runs on. */
  readonly evict: (sessionId: string) => Effect.Effect<void>
  /** The sessions working now (a turn runs or their inbox is being worked through). */
  readonly runningSessions: Effect.Effect<ReadonlySet<string>>
  /**
   * Commits an event outside a turn (an inbox change, a memory decision), in sequence with
   * whatever the running turn commits.
   */
  readonly record: (sessionId: string, draft: Draft) => Effect.Effect<AgentEvent, EngineError>
  /**
   * Cold recovery: opens the session and closes a turn a dead process left open
   * (`turn.completed` error / `interrupted`), so every turn in the log stays closed.
   */
  readonly recover: (sessionId: string) => Effect.Effect<SessionInfo, EngineError>
  /**
   * Compacts the session's completed turns now (`/compact`), while no turn runs. Gives the
   * `context.compacted` event, or none when there was nothing (new) to compact.
   */
  readonly compact: (sessionId: string) => Effect.Effect<Option.Option<AgentEvent>, EngineError>
  /**
   * Makes `mode` the session's permission mode, recorded as `session.mode_changed` by `by`;
   * none when it already is. A running turn's next permission check already uses it.
   */
  readonly setMode: (sessionId: string, mode: PermissionMode, by: string) => Effect.Effect<Option.Option<AgentEvent>, EngineError>
  /**
   * Makes `model` the session's model, recorded as `session.model_changed` by `by`; none when it
   * already is. Never refused: a running turn resolved its model when it started and ends on
   * it, so the change holds from the session's next turn (as a queued prompt's `model` does).
   */
  readonly setModel: (sessionId: string, model: string, by: string) => Effect.Effect<Option.Option<AgentEvent>, EngineError>
  /**
   * A person's rewind of the files, the conversation or both (`rewind.ts`), while no turn runs
   * (else TurnInProgress). Files need the Checkpoints service; without it only the
   * conversation of a session that never recorded a checkpoint can go back.
   */
  readonly rewind: (sessionId: string, request: RewindRequest) => Effect.Effect<RewindResult, EngineError | RewindError>
  /** Undoes the session's last rewind not undone yet, while no turn runs. */
  readonly redo: (sessionId: string, request: RedoRequest) => Effect.Effect<RewindResult, EngineError | RewindError>
}

export class SessionEngine extends Context.Tag("custom-agent/SessionEngine")<SessionEngine, SessionEngineShape>() {}

/** Who hears of a turn's events as they commit, and of its admission. */
interface TurnSink {
  readonly offer: (event: AgentEvent) => Effect.Effect<unknown>
  readonly offerAll: (events: ReadonlyArray<AgentEvent>) => Effect.Effect<unknown>
  readonly admitted: (receipt: PromptReceipt) => Effect.Effect<unknown>
}

export const make = (options: SessionEngineOptions = defaultEngineOptions) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const ids = yield* Ids
    const gateway = yield* ModelGateway
    const router = yield* ToolRouter
    const permissions = yield* PermissionEngine
    const approvals = yield* Approvals
    const files = yield* Files
    // Required, so a wiring cannot forget one: a wiring without them provides the "none"
    // layers (noEventBus, noMcp, noMemoryStore, builtInContext) explicitly.
    const context = yield* ContextBuilder
    const memory = yield* MemoryStore
    const mcp = yield* McpHub
    const bus = yield* EventBus
    const hooks = yield* Hooks
    // Optional: an embedder without a checkpoint store records none, and cannot restore files.
    const checkpoints = yield* Effect.serviceOption(Checkpoints)
    // Needed only by turns with an output schema; an engine without one fails those turns.
    const outputValidator = yield* Effect.serviceOption(OutputValidator)
    // Given by live tracing: tool processes learn their span (TRACEPARENT).
    const traceContext = yield* Effect.serviceOption(TraceContext)
    // Optional: without agent definitions there is no `task` tool.
    const agents = yield* Effect.serviceOption(Agents)
    // Optional: without it a subagent's definition can name no model but the engine's (or its parent's).
    const resolver = yield* Effect.serviceOption(ModelResolver)
    const subagentLimits = options.subagents ?? defaultSubagentLimits
    const childModel = childModelOf(gateway, resolver)
    // An actor whose append was refused as out of sequence leaves the map: the next call loads the log again.
    const services = { store, ids, bus, fenced: (sessionId: string) => RcMap.invalidate(actors, sessionId) }
    const conversationOptions = { toolResultChars: options.toolResultChars }

    /**
     * The live sessions. Whoever uses one holds it (a running turn, a prompt's back-to-back
     * turns, a call); once none does for the idle time, it is evicted: its memory goes and its
     * MCP servers stop. The next use loads it again from the log.
     */
    /** The session as work outside any turn sees it: its events are committed in no turn. */
    const sessionOf = (actor: SessionActor): CurrentSessionShape => ({
      sessionId: actor.state.sessionId,
      state: actor.state,
      workspaceRoot: actor.state.header?.cwd ?? ".",
      mode: () => actor.state.mode,
      emit: actor.commit,
      emitAll: (drafts) => (drafts.length === 0 ? Effect.succeed([]) : actor.commitAll(drafts))
    })
    /** Runs `effect` as work on the actor's session outside any turn (`/compact`, rewind, SessionEnd). */
    const outsideTurn =
      (actor: SessionActor) =>
      <A, E>(effect: Effect.Effect<A, E, CurrentSession | Hooks>): Effect.Effect<A, E> =>
        effect.pipe(withSession(sessionOf(actor)), Effect.provideService(Hooks, hooks))
    const recordCheckpoint = checkpointRecorder(checkpoints)

    /** Sessions just created, handed to the map's lookup (see createSession). */
    const created = new Map<string, SessionActor>()
    const lookup = (sessionId: string): Effect.Effect<SessionActor, EngineError> =>
      Effect.suspend(() => {
        const fresh = created.get(sessionId)
        created.delete(sessionId)
        return fresh === undefined ? loadActor(services, sessionId, conversationOptions) : Effect.succeed(fresh)
      })
    /** Actors whose SessionStart hooks ran: a session's first turn in this process runs them (an evicted actor goes from here with it). */
    const sessionStarted = new WeakSet<SessionActor>()

    /**
     * SessionEnd: when a session that ran a turn here leaves memory (idle, or the engine stops),
     * its hooks run and are recorded outside any turn. They cannot keep it.
     */
    const sessionEnd = (actor: SessionActor): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (!sessionStarted.has(actor)) return Effect.void
        return runHooks("SessionEnd", { reason: "other" }, "other").pipe(
          Effect.flatMap((runs) => recordRuns(runs, () => ({}))),
          outsideTurn(actor),
          Effect.catchAll((error) => Effect.logWarning(`could not record the SessionEnd hooks of ${actor.state.sessionId}`, error))
        )
      })

    const actors = yield* RcMap.make({
      lookup: (sessionId: string) =>
        Effect.tap(lookup(sessionId), (actor) => Effect.addFinalizer(() => Effect.zipRight(sessionEnd(actor), mcp.release(sessionId)))),
      idleTimeToLive: Duration.millis(options.sessionIdleMs ?? defaultSessionIdleMs)
    })

    /** The session's actor, held for the scope. A failed load is forgotten, so a later call tries again. */
    const hold = (sessionId: string): Effect.Effect<SessionActor, EngineError, Scope.Scope> =>
      Effect.tapError(RcMap.get(actors, sessionId), () => RcMap.invalidate(actors, sessionId))

    const withActor = <A, E>(sessionId: string, use: (actor: SessionActor) => Effect.Effect<A, E>): Effect.Effect<A, E | EngineError> =>
      Effect.scoped(Effect.flatMap(hold(sessionId), use))

    const isRunning = (actor: SessionActor) => Effect.map(Ref.get(actor.turn), (turn) => actor.driving || Option.isSome(turn))

    /**
     * The sessions working now, kept as their work starts and ends, so that listing them does
     * not touch (and so keep alive) every live actor.
     */
    const working = new Set<string>()
    const noteWork = (actor: SessionActor) =>
      Effect.flatMap(isRunning(actor), (running) =>
        Effect.sync(() => {
          if (running) working.add(actor.state.sessionId)
          else working.delete(actor.state.sessionId)
        })
      )

    const interrupted = (turnId: string): Draft => ({
      type: "turn.completed",
      turnId,
      payload: { stopReason: "error", errorCode: "interrupted", message: "the process stopped before this turn ended" }
    })

    /**
     * Closes a turn a dead process (or a failed store) left open. Checked under the lock: only
     * the holder of the turn claim, or anyone while no turn runs, may close it.
     */
    const closeLeftOpen = (actor: SessionActor, holdsClaim: boolean): Effect.Effect<Option.Option<AgentEvent>, EventStoreError> =>
      actor.withCommitLock(
        Effect.gen(function* () {
          const leftOpen = actor.state.openTurnId
          if (leftOpen === undefined) return Option.none()
          if (holdsClaim) return Option.some(yield* actor.commitLocked(interrupted(leftOpen)))
          if (Option.isSome(yield* Ref.get(actor.turn))) return Option.none()
          // A turn another process runs holds the session's lease: only a turn nobody holds was left open.
          const close = (held: boolean) => (held ? Effect.asSome(actor.commitLocked(interrupted(leftOpen))) : Effect.succeedNone)
          return yield* Effect.scoped(Effect.flatMap(store.leases.hold(actor.state.sessionId, { waitForExpiry: false }), close))
        })
      )

    const infoOf = (actor: SessionActor) =>
      Effect.gen(function* () {
        const header = actor.state.header
        if (header === undefined) return yield* new SessionNotFound({ sessionId: actor.state.sessionId })
        return { header, lastSequence: actor.state.lastSequence, running: yield* isRunning(actor), inbox: actor.state.inbox, mode: actor.state.mode }
      })

    /** A new session's first event; its actor enters the map as it is, without a replay. */
    const createSession = (input: CreateSessionInput): Effect.Effect<SessionInfo, EngineError> =>
      Effect.gen(function* () {
        const sessionId = input.sessionId ?? (yield* ids.make("ses"))
        const fresh = yield* makeActor(services, emptySessionState(sessionId, conversationOptions))
        const model = input.model ?? gateway.info.id
        // The API is known here only for the engine's own model; another is resolved at its first turn.
        const api = model === gateway.info.id ? gateway.info.api : undefined
        yield* fresh.commit({
          type: "session.created",
          payload: {
            cwd: input.cwd,
            client: input.client,
            ...(input.title === undefined ? {} : { title: input.title }),
            model,
            ...(api === undefined ? {} : { api })
          }
        })
        // Taken by the map's lookup within this call, so nothing stays behind here.
        created.set(sessionId, fresh)
        return yield* withActor(sessionId, infoOf).pipe(Effect.ensuring(Effect.sync(() => created.delete(sessionId))))
      })

    const newRunningTurn = Effect.map(
      Effect.all([Deferred.make<void>(), Deferred.make<void>(), Scope.make()]),
      ([cancel, done, lease]): RunningTurn => ({ cancel, done, lease })
    )

    // The lease goes first: once the session is noted idle here, no other process sees it running either.
    const releaseClaim = (actor: SessionActor, running: RunningTurn) =>
      Scope.close(running.lease, Exit.void).pipe(
        Effect.zipRight(Ref.set(actor.turn, Option.none())),
        Effect.zipRight(noteWork(actor)),
        Effect.zipRight(Deferred.succeed(running.done, undefined))
      )

    /**
     * Runs a claimed turn to its end, telling `sink` of each event; the claim is released after.
     * `delegation` is set for a subagent's turn a `task` call runs: its definition, depth and
     * parent's mode. A subagent's session prompted on its own (no delegation) keeps its
     * definition (`standingDelegation`), or the turn ends `agent_unavailable` without running.
     */
    const runClaimed = (actor: SessionActor, running: RunningTurn, input: RunTurnInput, sink: TurnSink, delegation?: Delegation): Effect.Effect<void, EngineError> => {
      // Every event of the turn passes here, so its budget sees its requests, summaries and subagents alike.
      const spent = turnSpend(delegation?.above?.spent)
      const emit = (draft: Draft) =>
        actor.commit(draft).pipe(
          Effect.tap((event) => {
            spent.observe(event)
            return sink.offer(event)
          })
        )
      // Nothing to commit (no steering, no MCP notices, an empty answer chunk: the usual case) costs nothing.
      const noEvents = Effect.succeed<ReadonlyArray<AgentEvent>>([])
      const emitAll = (drafts: ReadonlyArray<Draft>) =>
        drafts.length === 0
          ? noEvents
          : actor.commitAll(drafts).pipe(
              Effect.tap((events) => {
                events.forEach(spent.observe)
                return sink.offerAll(events)
              })
            )

      /** Closes the turn left open, if any: on external interruption or a store failure. */
      const closeOpenTurn = (outcome: TurnOutcome) =>
        Effect.suspend(() => {
          const turnId = actor.state.openTurnId
          if (turnId === undefined) return Effect.void
          return emit({ type: "turn.completed", turnId, payload: outcome }).pipe(
            Effect.asVoid,
            Effect.catchAll((error) => Effect.logWarning(`could not close turn ${turnId}; it is closed when the session is next used`, error))
          )
        })

      return Effect.gen(function* () {
        const closed = yield* closeLeftOpen(actor, true)
        if (Option.isSome(closed)) yield* sink.offer(closed.value)
        const turnId = yield* ids.make("turn")
        if (input.permissionMode !== undefined) {
          const changed = yield* changeMode(actor, input.permissionMode, input.client ?? "library")
          if (Option.isSome(changed)) yield* sink.offer(changed.value)
        }
        if (input.model !== undefined) {
          const changed = yield* changeModel(actor, input.model, input.client ?? "library")
          if (Option.isSome(changed)) yield* sink.offer(changed.value)
        }
        const state = actor.state
        // What the person typed: a command's line rather than its expansion.
        const typed = input.command === undefined ? input.content : typedLine(input.command)
        const started = yield* emit({
          type: "turn.started",
          turnId,
          payload: {
            promptPreview: preview(typed),
            permissionMode: state.mode,
            ...(options.runner === undefined ? {} : { runner: options.runner }),
            ...(input.terms === undefined ? {} : { terms: input.terms })
          }
        })
        const message = yield* emit({
          type: "user.message",
          turnId,
          payload: {
            content: input.content,
            mode: input.mode ?? "queue",
            ...(input.requestId === undefined ? {} : { requestId: input.requestId }),
            ...(input.command === undefined ? {} : { command: input.command }),
            ...(input.attached === undefined ? {} : { attached: input.attached })
          }
        })
        yield* sink.admitted({ _tag: "Started", turnId, sequence: message.sequence })
        const parent = state.header?.parent
        const standing =
          delegation !== undefined || parent === undefined
            ? Either.right(delegation)
            : yield* Effect.either(
                standingDelegation(
                  { agents, childModel, engineModel: gateway },
                  {
                    sessionId: input.sessionId,
                    cwd: state.header?.cwd ?? ".",
                    parent,
                    mode: () => state.mode,
                    recordInRoot: (draft) => emit({ ...draft, turnId })
                  }
                )
              )
        if (Either.isLeft(standing)) {
          yield* emit({ type: "turn.completed", turnId, payload: { stopReason: "error", errorCode: agentUnavailableCode, message: standing.left.message } })
          return
        }
        const turnDelegation = standing.right
        // A subagent's turn asks its delegation's model; a session of its own, the model its log names.
        const model = turnDelegation === undefined ? yield* Effect.either(sessionModel(gateway, resolver, state.header?.model)) : Either.right(turnDelegation.model)
        if (Either.isLeft(model)) {
          const message = `the session's model ${model.left.model} cannot be used: ${model.left.message}`
          yield* emit({ type: "turn.completed", turnId, payload: { stopReason: "error", errorCode: "model_unavailable", message } })
          return
        }
        yield* emitAll(autoTitle(state, turnId, typed))
        const workspaceRoot = state.header?.cwd ?? "."
        yield* emitAll(yield* projectRulesDrafts(permissions, state, workspaceRoot, turnId))
        const sessionStart = sessionStarted.has(actor) ? undefined : state.turns.length === 1 ? "startup" : "resume"
        sessionStarted.add(actor)
        const agent = turnDelegation?.agent
        const self: Delegation = turnDelegation ?? {
          depth: 0,
          rootSessionId: input.sessionId,
          recordInRoot: (draft) => emit({ ...draft, turnId }),
          mode: () => state.mode,
          model: model.right
        }
        const currentTurn: CurrentTurnShape = {
          sessionId: input.sessionId,
          turnId,
          turnStart: started.sequence,
          state,
          workspaceRoot,
          mode: () => state.mode,
          delegation: self,
          emit,
          emitAll,
          ...(Option.isSome(traceContext) ? { traceparent: (toolCallId?: string) => traceContext.value.traceparent(input.sessionId, turnId, toolCallId) } : {})
        }
        // A child a task call runs takes its steps from this turn's allowance too; one prompted on its own is its own root.
        const allowance = turnAllowance(
          input.maxSteps ?? agent?.maxSteps ?? options.maxSteps,
          turnBudget(input.terms, self.model.info.id, spent),
          delegation?.above?.allowance
        )
        const taskTool = Option.isNone(agents)
          ? undefined
          : { agents: agents.value, limits: subagentLimits, asParent: { spent, allowance } }
        // A session's own turn (not a subagent's) may leave plan mode through a plan a person approves.
        const ownTurn = agent === undefined
        const offerChange = (changed: Option.Option<AgentEvent>) => (Option.isSome(changed) ? sink.offer(changed.value) : Effect.void)
        const outcome = yield* Effect.gen(function* () {
          // Built in the turn's scope: its `task` tool reads the turn and the engine's Subagents.
          const turnRouter = ownTurn
            ? withPlanTool(yield* delegatingRouter(router, taskTool, undefined), () => self.mode() === "plan")
            : yield* delegatingRouter(router, taskTool, agent?.tools === undefined ? undefined : new Set(agent.tools))
          return yield* runTurnBody({
            ...(agent === undefined ? {} : { agent: agent.name }),
            prompt: { content: input.content, sequence: message.sequence },
            ...(sessionStart === undefined ? {} : { sessionStart }),
            gateway: self.model,
            context: agent === undefined ? context : childContext(context, agent),
            compactionThreshold: options.compactionThreshold,
            mcp,
            allowance,
            ...(input.terms === undefined ? {} : { terms: input.terms }),
            output: outputCheck({ terms: input.terms, validator: outputValidator }),
            takeSteering: takeSteering(actor),
            tools: {
              router: turnRouter,
              ...(ownTurn ? { plans: { changeMode: (mode: PermissionMode, by: string) => Effect.tap(changeMode(actor, mode, by), offerChange) } } : {}),
              permissions,
              // A session prompted on its own is its own root: its questions are its own clients'.
              approvals: agent === undefined || self.rootSessionId === input.sessionId ? approvals : relayedApprovals(approvals, self, agent.name),
              // A client that serves files per session (an editor over ACP) gets this session's view.
              files: files.forSession?.(input.sessionId) ?? files,
              memory,
              newId: ids.make,
              checkpoint: recordCheckpoint
            }
          })
        }).pipe(withTurn(currentTurn), Effect.provideService(Hooks, hooks), Effect.provideService(Subagents, subagents), untilCancelled(running))
        yield* emit({ type: "turn.completed", turnId, payload: outcome })
      }).pipe(
        // A model a standing delegation resolved lives for the turn's run.
        Effect.scoped,
        Effect.onInterrupt(() => closeOpenTurn(cancelledOutcome)),
        Effect.tapError(() => closeOpenTurn({ stopReason: "error", errorCode: "store_failure", message: "the event store failed" })),
        Effect.ensuring(releaseClaim(actor, running))
      )
    }

    /**
     * A subagent: a session of its own (its `session.created` names the parent's session, turn
     * and call), one turn on the delegation prompt under the parent's mode, run on this fiber so
     * that interrupting the parent's call cancels it (its turn is then closed `cancelled`).
     */
    const runChild: RunChild = (request, started) =>
      Effect.scoped(
        Effect.gen(function* () {
          const { parent, agent, delegation } = request
          // Before the child exists: a model that cannot be used leaves no empty session behind.
          const model = yield* childModel(request.agent, request.parentModel)
          const childId = yield* ids.make("ses")
          const fresh = yield* makeActor(services, emptySessionState(childId, conversationOptions))
          yield* fresh.commit({
            type: "session.created",
            payload: {
              cwd: parent.workspaceRoot,
              client: "subagent",
              title: `${agent.name}: ${preview(request.prompt)}`,
              model: model.info.id,
              ...(model.info.api === undefined ? {} : { api: model.info.api }),
              parent: { sessionId: parent.sessionId, turnId: parent.turnId, toolCallId: parent.toolCallId, agent: agent.name, depth: delegation.depth }
            }
          })
          created.set(childId, fresh)
          const tally = childTally()
          const sink: TurnSink = {
            offer: (event) => Effect.sync(() => tally.offer(event)),
            offerAll: (events) => Effect.sync(() => events.forEach(tally.offer)),
            admitted: () => Effect.void
          }
          const input: RunTurnInput = {
            sessionId: childId,
            content: request.prompt,
            client: "subagent",
            permissionMode: delegation.mode()
          }
          return yield* Effect.gen(function* () {
            const actor = yield* hold(childId)
            yield* started(childId, () => tally.result(childId))
            const claimed = yield* claim(actor)
            yield* runClaimed(actor, claimed, input, sink, { ...delegation, model })
            return tally.result(childId)
          }).pipe(Effect.ensuring(Effect.sync(() => created.delete(childId))))
        })
      )

    // What a turn's `task` tool requires: the engine runs the child (provided in every turn's scope).
    const subagents: SubagentsShape = { run: runChild }

    /**
     * Claims the turn here, then the session's lease in the store (a process sharing the store
     * may run a turn on it); fails with TurnInProgress when either is taken. A lease whose
     * holder may have died is waited for until it would have expired.
     */
    const claim = (actor: SessionActor): Effect.Effect<RunningTurn, TurnInProgress | StoreFailure> =>
      Effect.flatMap(newRunningTurn, (running) =>
        Effect.flatMap(claimTurn(actor, running), (claimed) => {
          const sessionId = actor.state.sessionId
          if (!claimed) return Effect.zipRight(Scope.close(running.lease, Exit.void), Effect.fail(new TurnInProgress({ sessionId })))
          return Effect.zipRight(noteWork(actor), Scope.extend(store.leases.hold(sessionId, { waitForExpiry: true }), running.lease)).pipe(
            Effect.flatMap((held) => (held ? Effect.succeed(running) : Effect.fail(new TurnInProgress({ sessionId, elsewhere: true })))),
            Effect.onError(() => releaseClaim(actor, running))
          )
        })
      )

    /** Starts a turn in the scope and gives its events' mailbox; closing the scope interrupts the turn. */
    const startTurn = (input: RunTurnInput) =>
      Effect.gen(function* () {
        const actor = yield* hold(input.sessionId)
        const running = yield* claim(actor)
        // A Mailbox is cheaper per event than a Queue of Takes (docs/performance.md).
        const out = yield* Mailbox.make<AgentEvent, EngineError>()
        const sink: TurnSink = { offer: (event) => out.offer(event), offerAll: (events) => out.offerAll(events), admitted: () => Effect.void }
        yield* runClaimed(actor, running, input, sink).pipe(
          Effect.matchCauseEffect({ onSuccess: () => out.end, onFailure: (cause) => out.failCause(cause) }),
          Effect.forkScoped
        )
        return out
      })

    const runTurn = (input: RunTurnInput): DirectlyPullable<AgentEvent, EngineError, never> =>
      Object.assign(Stream.unwrapScoped(Effect.map(startTurn(input), Mailbox.toStream)), {
        [DirectPull]: (scope: Scope.Scope) => Effect.map(Scope.extend(startTurn(input), scope), mailboxPull)
      })

    const quiet: Pick<TurnSink, "offer" | "offerAll"> = { offer: () => Effect.void, offerAll: () => Effect.void }

    const driveServices: DriveServices = {
      claim: (actor) => claim(actor),
      release: releaseClaim,
      runTurn: (actor, running, message, admitted) =>
        runClaimed(actor, running, { sessionId: actor.state.sessionId, mode: "queue", ...message }, { ...quiet, admitted: (receipt) => Deferred.succeed(admitted, receipt) }),
      announce: (actor, running) => Effect.zipRight(noteWork(actor), bus.status(actor.state.sessionId, running))
    }

    // Turns a prompt starts run here, each holding its session's actor until its inbox is empty.
    const drives = yield* FiberSet.make()

    const prompt = (input: PromptMessage): Effect.Effect<PromptReceipt, EngineError> =>
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
                yield* record.pipe(Effect.onError(() => releaseClaim(actor, running)))
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

    const cancelTurn = (sessionId: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        // Only a working session has a turn to cancel, and a working session is live.
        if (!working.has(sessionId)) return Effect.void
        return withActor(sessionId, (actor) =>
          Effect.gen(function* () {
            const running = yield* Ref.get(actor.turn)
            if (Option.isNone(running)) return
            yield* Deferred.succeed(running.value.cancel, undefined)
            yield* Deferred.await(running.value.done)
          })
        ).pipe(
          // It ended and was evicted in between, and loading it again failed: there is nothing to cancel.
          Effect.catchAll((error) => Effect.logDebug(`nothing to cancel in ${sessionId}`, error))
        )
      })

    const runningSessions: Effect.Effect<ReadonlySet<string>> = Effect.sync(() => new Set(working))

    /** Runs `use` holding the session's turn claim: refused with TurnInProgress while the session works. */
    const whileIdle = <A, E>(sessionId: string, use: (actor: SessionActor) => Effect.Effect<A, E>): Effect.Effect<A, E | EngineError> =>
      withActor(sessionId, (actor) =>
        Effect.gen(function* () {
          // Between two of a prompt's turns the claim is free, but the session still works.
          if (actor.driving) return yield* new TurnInProgress({ sessionId })
          const running = yield* claim(actor)
          return yield* use(actor).pipe(Effect.ensuring(releaseClaim(actor, running)))
        })
      )

    const compact = (sessionId: string): Effect.Effect<Option.Option<AgentEvent>, EngineError> =>
      whileIdle(sessionId, (actor) => compactHistory(gateway, "request").pipe(outsideTurn(actor)))

    /** What a rewind or redo works from: the session's log folded while the claim is held, so nothing is added meanwhile. */
    const rewindBasis = (actor: SessionActor): Effect.Effect<RewindBasis, EventStoreError> =>
      Effect.map(Stream.runFold(store.replay(actor.state.sessionId), emptyRewindHistory(), addEvent), (history) => ({ checkpoints, history }))

    const resume = (sessionId: string): Effect.Effect<void, EngineError> =>
      withActor(sessionId, (actor) =>
        actor.inboxLock.withPermits(1)(
          Effect.gen(function* () {
            if (yield* isRunning(actor)) return
            if (actor.state.inbox.nextStep.length + actor.state.inbox.nextTurn.length === 0) return
            // The turn first, then the message: one refused (another process runs the session) stays queued.
            const running = yield* claim(actor)
            const next = yield* takeNext(actor).pipe(Effect.onError(() => releaseClaim(actor, running)))
            if (Option.isNone(next)) return yield* releaseClaim(actor, running)
            yield* startDriving(driveServices, actor)
            const admitted = yield* Deferred.make<PromptReceipt, EngineError>()
            const first = { message: turnMessage(next.value), running }
            yield* FiberSet.run(drives, withActor(sessionId, (held) => drive(driveServices, held, first, admitted)))
          })
        )
      )

    // Each public operation is named (a span, and its place in a failure's trace); none is per step of a turn.
    return SessionEngine.of({
      createSession: Effect.fn("Engine.createSession")(createSession),
      runTurn,
      prompt: Effect.fn("Engine.prompt")(prompt),
      editQueue: Effect.fn("Engine.editQueue")((sessionId: string, messageId: string, action: QueueAction) =>
        withActor(sessionId, (actor) => editQueue(actor, messageId, action))
      ),
      cancelTurn: Effect.fn("Engine.cancelTurn")(cancelTurn),
      getSession: Effect.fn("Engine.getSession")((sessionId: string) => withActor(sessionId, infoOf)),
      runningSessions,
      resume: Effect.fn("Engine.resume")(resume),
      evict: Effect.fn("Engine.evict")((sessionId: string) => RcMap.invalidate(actors, sessionId)),
      record: Effect.fn("Engine.record")((sessionId: string, draft: Draft) => withActor(sessionId, (actor) => actor.commit(draft))),
      recover: Effect.fn("Engine.recover")((sessionId: string) => withActor(sessionId, (actor) => Effect.zipRight(closeLeftOpen(actor, false), infoOf(actor)))),
      compact: Effect.fn("Engine.compact")(compact),
      setMode: Effect.fn("Engine.setMode")((sessionId: string, mode: PermissionMode, by: string) => withActor(sessionId, (actor) => changeMode(actor, mode, by))),
      setModel: Effect.fn("Engine.setModel")((sessionId: string, model: string, by: string) => withActor(sessionId, (actor) => changeModel(actor, model, by))),
      rewind: Effect.fn("Engine.rewind")((sessionId: string, request: RewindRequest) =>
        whileIdle(sessionId, (actor) => Effect.flatMap(rewindBasis(actor), (basis) => rewind(basis, request)).pipe(outsideTurn(actor)))
      ),
      redo: Effect.fn("Engine.redo")((sessionId: string, request: RedoRequest) =>
        whileIdle(sessionId, (actor) => Effect.flatMap(rewindBasis(actor), (basis) => redo(basis, request)).pipe(outsideTurn(actor)))
      )
    })
  })

export const layer = (options: SessionEngineOptions = defaultEngineOptions) => Layer.scoped(SessionEngine, make(options))

const cancelledOutcome: TurnOutcome = { stopReason: "cancelled" }

/**
 * The turn's body until it ends or the turn is cancelled. Either way (and when the turn itself
 * is interrupted, as a subagent's is with its parent's call) the body's interruption is waited
 * for: its tools and its own subagents record their ends before the turn is closed. A plain
 * race would wait only when the cancel wins; an interrupted race interrupts its sides without
 * waiting, and the turn would close while its children still write.
 */
const untilCancelled =
  (running: RunningTurn) =>
  <E>(body: Effect.Effect<TurnOutcome, E>): Effect.Effect<TurnOutcome, E> =>
    Effect.flatMap(Effect.fork(body), (fiber) =>
      Effect.raceFirst(Fiber.join(fiber), Effect.as(Deferred.await(running.cancel), cancelledOutcome)).pipe(
        Effect.ensuring(Fiber.interrupt(fiber))
      )
    )

/**
 * An untitled session's first prompt gives it a title (`by: auto`, in the turn that prompt
 * started), by the rule `run` titles its sessions by.
 */
const autoTitle = (state: SessionState, turnId: string, content: string): ReadonlyArray<Draft> => {
  const title = titleOf(content)
  const untitledFirstTurn = state.header?.title === undefined && state.turns.length === 1
  return untitledFirstTurn && title !== "" ? [{ type: "session.renamed", turnId, payload: { title, by: "auto" } }] : []
}

const preview = (content: string): string => {
  const line = content.replace(/\s+/g, " ").trim()
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}
