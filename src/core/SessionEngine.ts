import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { EngineError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { PromptReceipt, QueueAction, QueuedMessageNotFound, TurnRequest } from "../domain/host.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { RewindResult } from "../domain/rewind.js"
import { EventStore } from "../services/EventStore.js"
import { Hooks } from "../services/Hooks.js"
import { Ids } from "../services/Ids.js"
import { McpHub } from "../services/McpHub.js"
import { ModelGateway } from "../services/ModelGateway.js"
import { type DirectlyPullable, withPull } from "./direct-pull.js"
import { makeIdleOperations } from "./idle-operations.js"
import { mailboxPull } from "./mailbox-pull.js"
import type { RedoRequest, RewindError, RewindRequest } from "./rewind.js"
import { changeMode, changeModel, type Draft, makeActor } from "./session-actor.js"
import { editQueue } from "./session-inbox.js"
import { makeSessionLifecycle } from "./session-lifecycle.js"
import { makeSessionPrompts } from "./session-prompts.js"
import { makeSessionRegistry, type SessionInfo } from "./session-registry.js"
import { emptySessionState } from "./session-state.js"
import type { SubagentLimits } from "./subagents.js"
import { makeSubagentSessions } from "./subagent-sessions.js"
import { makeRunClaimed, type RunClaimed, type TurnSink } from "./turn-admission.js"
import { makeTurnClaims } from "./turn-claims.js"

/**
 * The engine, as a facade: each concept is a file of its own under src/core (docs/architecture.md,
 * "A prompt's path"), and this one wires them and names the public operations.
 */

export type { Draft } from "./session-actor.js"
export type { RedoRequest, RewindRequest } from "./rewind.js"
export type { SessionInfo } from "./session-registry.js"

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
  /** Ends the running turn with `cancelled` and waits until it is closed; a no-op when idle (SessionNotFound for a session not in the store). */
  readonly cancelTurn: (sessionId: string) => Effect.Effect<void, EngineError>
  /**
   * The session as it is now. Like cancelTurn, setMode, setModel, compact, rewind and redo, it
   * opens the session recovered: loaded from the log if it is not live, and a turn a dead
   * process left open closed (`turn.completed` error / `interrupted`), so no caller recovers first.
   */
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

export const make = (options: SessionEngineOptions = defaultEngineOptions) =>
  Effect.gen(function* () {
    const ids = yield* Ids
    const gateway = yield* ModelGateway
    const mcp = yield* McpHub
    const conversation = { toolResultChars: options.toolResultChars }
    const lifecycle = makeSessionLifecycle(yield* Hooks)
    const registry = yield* makeSessionRegistry({
      conversation,
      idleMs: options.sessionIdleMs ?? defaultSessionIdleMs,
      // Leaving memory: the SessionEnd hooks of a session that ran a turn here, then its MCP servers stop.
      onRelease: (actor) => Effect.zipRight(lifecycle.sessionEnd(actor), mcp.release(actor.state.sessionId))
    })
    const claims = makeTurnClaims(yield* EventStore, registry.noteWork)
    // Every turn's `task` tool runs children through the Subagents its turn provides.
    const subagents = yield* makeSubagentSessions({ registry, claims, conversation })
    const runClaimed: RunClaimed = yield* makeRunClaimed({ options, registry, claims, lifecycle, subagents })
    const prompts = yield* makeSessionPrompts({ registry, claims, runClaimed })
    const idle = yield* makeIdleOperations({ registry, claims, lifecycle })
    const { withActor, withRecovered } = registry

    /** A new session's first event; its actor enters the map as it is, without a replay. */
    const createSession = (input: CreateSessionInput): Effect.Effect<SessionInfo, EngineError> =>
      Effect.gen(function* () {
        const sessionId = input.sessionId ?? (yield* ids.make("ses"))
        const fresh = yield* makeActor(registry.services, emptySessionState(sessionId, conversation))
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
        return yield* registry.adopt(fresh, withActor(sessionId, registry.info))
      })

    /** Starts a turn in the scope and gives its events' mailbox; closing the scope interrupts the turn. */
    const startTurn = (input: RunTurnInput) =>
      Effect.gen(function* () {
        const actor = yield* registry.hold(input.sessionId)
        const running = yield* claims.claim(actor)
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
      withPull(Stream.unwrapScoped(Effect.map(startTurn(input), Mailbox.toStream)), (scope) =>
        Effect.map(Scope.extend(startTurn(input), scope), mailboxPull)
      )

    const cancelTurn = (sessionId: string): Effect.Effect<void, EngineError> =>
      withRecovered(sessionId, (actor) =>
        Effect.gen(function* () {
          const running = yield* Ref.get(actor.turn)
          if (Option.isNone(running)) return
          yield* Deferred.succeed(running.value.cancel, undefined)
          yield* Deferred.await(running.value.done)
        })
      )

    // Each public operation is named (a span, and its place in a failure's trace); none is per step of a turn.
    return SessionEngine.of({
      createSession: Effect.fn("Engine.createSession")(createSession),
      runTurn,
      prompt: Effect.fn("Engine.prompt")(prompts.prompt),
      editQueue: Effect.fn("Engine.editQueue")((sessionId: string, messageId: string, action: QueueAction) =>
        withActor(sessionId, (actor) => editQueue(actor, messageId, action))
      ),
      cancelTurn: Effect.fn("Engine.cancelTurn")(cancelTurn),
      getSession: Effect.fn("Engine.getSession")((sessionId: string) => withRecovered(sessionId, (_actor, info) => Effect.succeed(info))),
      runningSessions: registry.working,
      resume: Effect.fn("Engine.resume")(prompts.resume),
      evict: Effect.fn("Engine.evict")(registry.evict),
      record: Effect.fn("Engine.record")((sessionId: string, draft: Draft) => withActor(sessionId, (actor) => actor.commit(draft))),
      compact: Effect.fn("Engine.compact")(idle.compact),
      setMode: Effect.fn("Engine.setMode")((sessionId: string, mode: PermissionMode, by: string) => withRecovered(sessionId, (actor) => changeMode(actor, mode, by))),
      setModel: Effect.fn("Engine.setModel")((sessionId: string, model: string, by: string) => withRecovered(sessionId, (actor) => changeModel(actor, model, by))),
      rewind: Effect.fn("Engine.rewind")(idle.rewind),
      redo: Effect.fn("Engine.redo")(idle.redo)
    })
  })

export const layer = (options: SessionEngineOptions = defaultEngineOptions) => Layer.scoped(SessionEngine, make(options))
