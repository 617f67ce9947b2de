import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type { EngineError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { PromptReceipt, TurnRequest } from "../domain/host.js"
import type { PermissionMode } from "../domain/permissions.js"
import { titleOf } from "../domain/session-title.js"
import { typedLine } from "../domain/slash-commands.js"
import { Agents } from "../services/Agents.js"
import { Approvals } from "../services/Approvals.js"
import { Checkpoints } from "../services/Checkpoints.js"
import { ContextBuilder } from "../services/ContextBuilder.js"
import { Hooks } from "../services/Hooks.js"
import { Ids } from "../services/Ids.js"
import { McpHub } from "../services/McpHub.js"
import { MemoryStore } from "../services/MemoryStore.js"
import { ModelGateway } from "../services/ModelGateway.js"
import { ModelResolver } from "../services/ModelResolver.js"
import { OutputValidator } from "../services/OutputValidator.js"
import { PermissionEngine } from "../services/PermissionEngine.js"
import { Files, ToolRouter } from "../services/ToolRouter.js"
import { TraceContext } from "../services/TraceContext.js"
import { turnBudget, turnSpend } from "./budget.js"
import { checkpointRecorder } from "./checkpoint-record.js"
import { childModel as childModelOf } from "./child-model.js"
import { type CurrentTurnShape, withTurn } from "./current-turn.js"
import { ModeChange } from "./mode-change.js"
import { outputCheck } from "./output-check.js"
import { RootTurn, type RootTurnShape } from "./root-turn.js"
import { withPlanTool } from "./plan-tool.js"
import { projectRulesDrafts } from "./project-rules-record.js"
import { changeMode, changeModel, type Draft, type RunningTurn, type SessionActor } from "./session-actor.js"
import { takeSteering } from "./session-inbox.js"
import type { SessionLifecycle } from "./session-lifecycle.js"
import { sessionModel } from "./session-model.js"
import type { SessionState } from "./session-state.js"
import type { SessionRegistry } from "./session-registry.js"
import type { SubagentSessions } from "./subagent-sessions.js"
import { agentUnavailableCode, standingDelegation } from "./standing-delegation.js"
import { relayedApprovals } from "./subagent-approvals.js"
import { childContext, defaultSubagentLimits, type Delegation, delegatingRouter, type SubagentLimits, Subagents } from "./subagents.js"
import type { TurnClaims } from "./turn-claims.js"
import { turnAllowance } from "./turn-allowance.js"
import { runTurnBody, type TurnOutcome } from "./turn.js"

/** Who hears of a turn's events as they commit, and of its admission. */
export interface TurnSink {
  readonly offer: (event: AgentEvent) => Effect.Effect<unknown>
  readonly offerAll: (events: ReadonlyArray<AgentEvent>) => Effect.Effect<unknown>
  readonly admitted: (receipt: PromptReceipt) => Effect.Effect<unknown>
}

/** The engine's options a turn reads. */
export interface TurnOptions {
  /** Model steps one turn may take before it ends with `max_steps`. */
  readonly maxSteps: number
  /** Share of the usable context window a request may fill before older turns are compacted. */
  readonly compactionThreshold: number
  /** Recorded in each `turn.started`: the cluster runner this engine is (`host:port`). */
  readonly runner?: string
  readonly subagents?: SubagentLimits
}

/**
 * Runs a claimed turn to its end, telling `sink` of each event; the claim is released after.
 * `delegation` is set for a subagent's turn a `task` call runs.
 */
export type RunClaimed = (
  actor: SessionActor,
  running: RunningTurn,
  input: TurnRequest,
  sink: TurnSink,
  delegation?: Delegation
) => Effect.Effect<void, EngineError>

export interface TurnAdmissionDeps {
  readonly options: TurnOptions
  readonly registry: SessionRegistry
  readonly claims: TurnClaims
  readonly lifecycle: SessionLifecycle
  /** What a turn's `task` tool requires, given this turn runner to run each child's turn on (provided in every turn's scope). */
  readonly subagents: SubagentSessions
}

/**
 * Turn admission: a claimed turn's `turn.started` and `user.message` (the prompt's receipt the
 * moment they are durable), its delegation, model and title, then its body in one scope
 * (`CurrentTurn`), and `turn.completed` however it ends.
 */
export const makeRunClaimed = ({ options, registry, claims, lifecycle, subagents: childSessions }: TurnAdmissionDeps) =>
  Effect.gen(function* () {
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
    const hooks = yield* Hooks
    // Optional: an embedder without a checkpoint store records none, and cannot restore files.
    const recordCheckpoint = checkpointRecorder(yield* Effect.serviceOption(Checkpoints))
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

    /**
     * Runs a claimed turn to its end, telling `sink` of each event; the claim is released after.
     * `delegation` is set for a subagent's turn a `task` call runs: its definition, depth and
     * parent's mode. A subagent's session prompted on its own (no delegation) keeps its
     * definition (`standingDelegation`), or the turn ends `agent_unavailable` without running.
     */
    const runClaimed: RunClaimed = (actor, running, input, sink, delegation) => {
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

      /** Closes the turn if it was left open: on external interruption or a store failure. */
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
        const closed = yield* registry.closeLeftOpen(actor, true)
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
                    mode: () => state.mode
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
        // A turn a `task` call started mirrors its questions where its root turn's clients look (inherited from its parent's scope); every other turn is its own root.
        const ownRoot: RootTurnShape = { record: (draft) => emit({ ...draft, turnId }) }
        const root = delegation === undefined ? ownRoot : Option.getOrElse(yield* Effect.serviceOption(RootTurn), () => ownRoot)
        const sessionStart = lifecycle.sessionStart(actor)
        const agent = turnDelegation?.agent
        const self: Delegation = turnDelegation ?? {
          depth: 0,
          rootSessionId: input.sessionId,
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
              permissions,
              // A session prompted on its own is its own root: its questions are its own clients'.
              approvals: agent === undefined || self.rootSessionId === input.sessionId ? approvals : relayedApprovals(approvals, root, self.rootSessionId, agent.name),
              // A client that serves files per session (an editor over ACP) gets this session's view.
              files: files.forSession?.(input.sessionId) ?? files,
              memory,
              newId: ids.make,
              checkpoint: recordCheckpoint
            }
          })
        }).pipe(
          withTurn(currentTurn),
          Effect.provideService(ModeChange, ownTurn ? Option.some({ change: (mode: PermissionMode, by: string) => Effect.tap(changeMode(actor, mode, by), offerChange) }) : Option.none()),
          Effect.provideService(RootTurn, root),
          Effect.provideService(Hooks, hooks),
          Effect.provideService(Subagents, subagents),
          untilCancelled(running)
        )
        yield* emit({ type: "turn.completed", turnId, payload: outcome })
      }).pipe(
        // A model a standing delegation resolved lives for the turn's run.
        Effect.scoped,
        Effect.onInterrupt(() => closeOpenTurn(cancelledOutcome)),
        Effect.tapError(() => closeOpenTurn({ stopReason: "error", errorCode: "store_failure", message: "the event store failed" })),
        Effect.ensuring(claims.release(actor, running))
      )
    }

    // A child's turn is admitted as every turn is: the Subagents each turn provides run it here.
    const subagents = childSessions(runClaimed)
    return runClaimed
  })

export const cancelledOutcome: TurnOutcome = { stopReason: "cancelled" }

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

export const preview = (content: string): string => {
  const line = content.replace(/\s+/g, " ").trim()
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}
