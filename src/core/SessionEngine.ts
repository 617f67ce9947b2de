import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { DirectPull, type DirectlyPullable } from "../services/direct-pull.js"
import { mailboxPull } from "./mailbox-pull.js"
import {
  type EngineError,
  type EventStoreError,
  SessionNotFound,
  TurnInProgress
} from "../domain/errors.js"
import { type AgentEvent, type MessageMode, SCHEMA_VERSION } from "../domain/events.js"
import type { PermissionMode } from "../domain/permissions.js"
import { Approvals } from "../services/Approvals.js"
import { EventBus } from "../services/EventBus.js"
import { EventStore } from "../services/EventStore.js"
import { Ids } from "../services/Ids.js"
import { ModelGateway } from "../services/ModelGateway.js"
import { PermissionEngine } from "../services/PermissionEngine.js"
import { projectRulesDrafts } from "./project-rules-record.js"
import { Files, ToolRouter } from "../services/ToolRouter.js"
import { ContextBuilder } from "../services/ContextBuilder.js"
import { McpHub } from "../services/McpHub.js"
import { MemoryStore } from "../services/MemoryStore.js"
import { type CommitLock, makeCommitLock } from "./commit-lock.js"
import { compactHistory } from "./compaction.js"
import { applyEvent, emptySessionState, type SessionHeader, type SessionState } from "./session-state.js"
import { runTurnBody, type TurnOutcome } from "./turn.js"

export interface CreateSessionInput {
  readonly cwd: string
  readonly client: string
  readonly title?: string
}

export interface RunTurnInput {
  readonly sessionId: string
  readonly content: string
  readonly mode?: MessageMode
  /**
   * The permission mode the client asks for. A mode other than the session's is first recorded
   * as the session's new mode (`session.mode_changed`, before `turn.started`); left out, the
   * turn runs under the session's mode.
   */
  readonly permissionMode?: PermissionMode
  /** Which client runs the turn (`by` of a mode change it makes; default `library`). */
  readonly client?: string
  /** Overrides the engine's step limit for this turn. */
  readonly maxSteps?: number
  /** Messages to steer the running turn, read at each step boundary (the host's inbox). */
  readonly takeSteering?: Effect.Effect<ReadonlyArray<string>>
}

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
}

export const defaultEngineOptions: SessionEngineOptions = {
  maxSteps: 50,
  compactionThreshold: 0.8,
  toolResultChars: 30_000
}

export interface SessionEngineShape {
  readonly createSession: (input: CreateSessionInput) => Effect.Effect<SessionInfo, EngineError>
  /**
   * Runs one turn. Every event is committed to the EventStore before it is emitted. The
   * stream ends after `turn.completed`; it fails only when the store fails (the turn is
   * then closed in the log if the store lets us). Interrupting it is the same as cancel.
   */
  readonly runTurn: (input: RunTurnInput) => Stream.Stream<AgentEvent, EngineError>
  /** Ends the running turn with `cancelled` and waits until it is closed; a no-op when idle. */
  readonly cancelTurn: (sessionId: string) => Effect.Effect<void>
  readonly getSession: (sessionId: string) => Effect.Effect<SessionInfo, EngineError>
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
}

export class SessionEngine extends Context.Tag("custom-agent/SessionEngine")<SessionEngine, SessionEngineShape>() {}

/** An event before the engine gives it an id, a sequence and a time. */
export type Draft = AgentEvent extends infer E
  ? E extends AgentEvent
    ? { readonly type: E["type"]; readonly payload: E["payload"]; readonly turnId?: string }
    : never
  : never

interface RunningTurn {
  readonly cancel: Deferred.Deferred<void>
  readonly done: Deferred.Deferred<void>
}

interface SessionHandle {
  readonly state: SessionState
  /** Serializes commits so sequences are reserved and advanced one at a time. */
  readonly lock: CommitLock
  readonly running: Ref.Ref<Option.Option<RunningTurn>>
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
    const conversationOptions = { toolResultChars: options.toolResultChars }
    const handles = yield* Ref.make(new Map<string, Deferred.Deferred<SessionHandle, EngineError>>())

    const newHandle = (state: SessionState) =>
      Effect.map(Ref.make(Option.none<RunningTurn>()), (running): SessionHandle => ({ state, lock: makeCommitLock(), running }))

    /**
     * Built in the catalogue's field order (turnId keeps its place when the draft's spread
     * repeats it), so what is written is byte for byte what a reader decodes. Not decoded
     * here: drafts are typed, and decoding each event cost about a tenth of a CLI step's CPU
     * (docs/performance.md); the test harnesses check every committed event instead.
     */
    const eventOf = (handle: SessionHandle, draft: Draft, id: string, sequence: number, timestamp: string): AgentEvent => ({
      id,
      schemaVersion: SCHEMA_VERSION,
      sessionId: handle.state.sessionId,
      ...(draft.turnId === undefined ? {} : { turnId: draft.turnId }),
      sequence,
      timestamp,
      ...draft
    })

    /**
     * Reserve the next sequences, append, and advance the state only when the append
     * succeeded: a failed append leaves the numbers free for the retry. Then publish in order,
     * so no one hears of an event the store does not hold. Drafts that are ready together (a
     * model answer's chunk) are one append, all or none: a group commit. Callers hold the
     * session's lock.
     */
    const commitAllLocked = (handle: SessionHandle, drafts: ReadonlyArray<Draft>): Effect.Effect<ReadonlyArray<AgentEvent>, EventStoreError> =>
      Effect.gen(function* () {
        const timestamp = new Date(yield* Clock.currentTimeMillis).toISOString()
        const events: Array<AgentEvent> = []
        for (const draft of drafts) {
          events.push(eventOf(handle, draft, yield* ids.make("evt"), handle.state.lastSequence + 1 + events.length, timestamp))
        }
        yield* store.appendAll(events)
        for (const event of events) {
          applyEvent(handle.state, event)
          yield* bus.publish(event)
        }
        return events
      })

    const commitLocked = (handle: SessionHandle, draft: Draft): Effect.Effect<AgentEvent, EventStoreError> =>
      Effect.flatMap(commitAllLocked(handle, [draft]), ([event]) =>
        event === undefined ? Effect.dieMessage("committing one draft gave no event") : Effect.succeed(event)
      )

    /** Under the lock, uninterruptible: a cancel never leaves an event appended but unapplied or unpublished. */
    const commit = (handle: SessionHandle, draft: Draft): Effect.Effect<AgentEvent, EventStoreError> =>
      handle.lock.withLock(commitLocked(handle, draft))

    const commitAll = (handle: SessionHandle, drafts: ReadonlyArray<Draft>): Effect.Effect<ReadonlyArray<AgentEvent>, EventStoreError> =>
      handle.lock.withLock(commitAllLocked(handle, drafts))

    const interrupted = (turnId: string): Draft => ({
      type: "turn.completed",
      turnId,
      payload: { stopReason: "error", errorCode: "interrupted", message: "the process stopped before this turn ended" }
    })

    /**
     * Closes a turn a dead process (or a failed store) left open. Checked under the lock: only
     * the holder of the running claim, or anyone while no turn runs, may close it.
     */
    const closeLeftOpen = (handle: SessionHandle, holdsClaim: boolean): Effect.Effect<Option.Option<AgentEvent>, EventStoreError> =>
      handle.lock.withLock(
        Effect.gen(function* () {
          const leftOpen = handle.state.openTurnId
          if (leftOpen === undefined) return Option.none()
          if (!holdsClaim && Option.isSome(yield* Ref.get(handle.running))) return Option.none()
          return Option.some(yield* commitLocked(handle, interrupted(leftOpen)))
        })
      )

    /** Cold recovery: rebuild a session's state from its log, once, however many ask at once. */
    const loadHandle = (sessionId: string): Effect.Effect<SessionHandle, EngineError> =>
      Effect.gen(function* () {
        const state = emptySessionState(sessionId, conversationOptions)
        yield* store.replay(sessionId).pipe(Stream.runForEach((event) => Effect.sync(() => applyEvent(state, event))))
        if (state.lastSequence === 0) return yield* new SessionNotFound({ sessionId })
        return yield* newHandle(state)
      })

    const open = (sessionId: string): Effect.Effect<SessionHandle, EngineError> =>
      Effect.gen(function* () {
        const fresh = yield* Deferred.make<SessionHandle, EngineError>()
        const existing = yield* Ref.modify(handles, (map) => {
          const found = map.get(sessionId)
          if (found !== undefined) return [found, map] as const
          return [undefined, new Map(map).set(sessionId, fresh)] as const
        })
        if (existing !== undefined) return yield* Deferred.await(existing)
        const loaded = yield* Effect.exit(loadHandle(sessionId))
        if (loaded._tag === "Failure") {
          // Forget the failed load so a later call can try again (the store may recover).
          yield* Ref.update(handles, (map) => {
            const next = new Map(map)
            next.delete(sessionId)
            return next
          })
        }
        yield* Deferred.done(fresh, loaded)
        return yield* loaded
      })

    const infoOf = (handle: SessionHandle) =>
      Effect.gen(function* () {
        const header = handle.state.header
        if (header === undefined) return yield* new SessionNotFound({ sessionId: handle.state.sessionId })
        const running = yield* Ref.get(handle.running)
        return { header, lastSequence: handle.state.lastSequence, running: Option.isSome(running), inbox: handle.state.inbox, mode: handle.state.mode }
      })

    /** Compared under the lock, so two clients setting the same mode record it once. */
    const changeMode = (handle: SessionHandle, mode: PermissionMode, by: string): Effect.Effect<Option.Option<AgentEvent>, EventStoreError> =>
      handle.lock.withLock(
        Effect.suspend(() =>
          handle.state.mode === mode
            ? Effect.succeedNone
            : Effect.asSome(commitLocked(handle, { type: "session.mode_changed", payload: { mode, by } }))
        )
      )

    const createSession = (input: CreateSessionInput): Effect.Effect<SessionInfo, EngineError> =>
      Effect.gen(function* () {
        const sessionId = yield* ids.make("ses")
        const handle = yield* newHandle(emptySessionState(sessionId, conversationOptions))
        yield* commit(handle, {
          type: "session.created",
          payload: {
            cwd: input.cwd,
            client: input.client,
            ...(input.title === undefined ? {} : { title: input.title }),
            model: gateway.info.id
          }
        })
        const ready = yield* Deferred.make<SessionHandle, EngineError>()
        yield* Deferred.succeed(ready, handle)
        yield* Ref.update(handles, (map) => new Map(map).set(sessionId, ready))
        return yield* infoOf(handle)
      })

    /** Starts a turn in the scope and gives its events' mailbox; closing the scope interrupts the turn. */
    const startTurn = (input: RunTurnInput) =>
      Effect.gen(function* () {
        const handle = yield* open(input.sessionId)
        const running: RunningTurn = { cancel: yield* Deferred.make<void>(), done: yield* Deferred.make<void>() }
        const claimed = yield* Ref.modify(handle.running, (current) =>
          Option.isSome(current) ? [false, current] : [true, Option.some(running)]
        )
        if (!claimed) return yield* new TurnInProgress({ sessionId: input.sessionId })

        // A Mailbox is cheaper per event than a Queue of Takes (docs/performance.md).
        const out = yield* Mailbox.make<AgentEvent, EngineError>()
        const emit = (draft: Draft) => commit(handle, draft).pipe(Effect.tap((event) => out.offer(event)))
        // Nothing to commit (no steering, no MCP notices, an empty answer chunk: the usual case) costs nothing.
        const noEvents = Effect.succeed<ReadonlyArray<AgentEvent>>([])
        const emitAll = (drafts: ReadonlyArray<Draft>) =>
          drafts.length === 0 ? noEvents : commitAll(handle, drafts).pipe(Effect.tap((events) => out.offerAll(events)))

        /** Closes the turn left open, if any: on external interruption or a store failure. */
        const closeOpenTurn = (outcome: TurnOutcome) =>
          Effect.suspend(() => {
            const turnId = handle.state.openTurnId
            if (turnId === undefined) return Effect.void
            return emit({ type: "turn.completed", turnId, payload: outcome }).pipe(
              Effect.asVoid,
              Effect.catchAll((error) =>
                Effect.logWarning(`could not close turn ${turnId}; it is closed when the session is next used`, error)
              )
            )
          })

        const program = Effect.gen(function* () {
          const closed = yield* closeLeftOpen(handle, true)
          if (Option.isSome(closed)) yield* out.offer(closed.value)
          const turnId = yield* ids.make("turn")
          if (input.permissionMode !== undefined) {
            const changed = yield* changeMode(handle, input.permissionMode, input.client ?? "library")
            if (Option.isSome(changed)) yield* out.offer(changed.value)
          }
          const permissionMode = handle.state.mode
          const started = yield* emit({ type: "turn.started", turnId, payload: { promptPreview: preview(input.content), permissionMode } })
          yield* emit({ type: "user.message", turnId, payload: { content: input.content, mode: input.mode ?? "queue" } })
          const workspaceRoot = handle.state.header?.cwd ?? "."
          yield* emitAll(yield* projectRulesDrafts(permissions, handle.state, workspaceRoot, turnId))
          const outcome = yield* runTurnBody({
            turnId,
            state: handle.state,
            gateway,
            context,
            compactionThreshold: options.compactionThreshold,
            mcp,
            maxSteps: input.maxSteps ?? options.maxSteps,
            takeSteering: input.takeSteering ?? Effect.succeed([]),
            tools: {
              sessionId: input.sessionId,
              turnId,
              workspaceRoot,
              // Read at each permission check: a mode set while the turn runs (an editor
              // switching to plan) holds from the next tool call on.
              get mode() {
                return handle.state.mode
              },
              router,
              permissions,
              approvals,
              // A client that serves files per session (an editor over ACP) gets this session's view.
              files: files.forSession?.(input.sessionId) ?? files,
              memory,
              newId: ids.make,
              turnStart: started.sequence,
              emit
            },
            emit,
            emitAll
          }).pipe(Effect.raceFirst(Deferred.await(running.cancel).pipe(Effect.as(cancelledOutcome))))
          yield* emit({ type: "turn.completed", turnId, payload: outcome })
        }).pipe(
          Effect.onInterrupt(() => closeOpenTurn(cancelledOutcome)),
          Effect.tapError(() =>
            closeOpenTurn({ stopReason: "error", errorCode: "store_failure", message: "the event store failed" })
          )
        )

        yield* program.pipe(
          Effect.matchCauseEffect({
            onSuccess: () => out.end,
            onFailure: (cause) => out.failCause(cause)
          }),
          Effect.ensuring(Ref.set(handle.running, Option.none()).pipe(Effect.zipRight(Deferred.succeed(running.done, undefined)))),
          Effect.forkScoped
        )
        return out
      })

    const runTurn = (input: RunTurnInput): DirectlyPullable<AgentEvent, EngineError, never> =>
      Object.assign(Stream.unwrapScoped(Effect.map(startTurn(input), Mailbox.toStream)), {
        [DirectPull]: (scope: Scope.Scope) => Effect.map(Scope.extend(startTurn(input), scope), mailboxPull)
      })

    const cancelTurn = (sessionId: string): Effect.Effect<void> =>
      Effect.gen(function* () {
        const entry = (yield* Ref.get(handles)).get(sessionId)
        if (entry === undefined) return
        const handle = yield* Deferred.await(entry).pipe(Effect.option)
        if (Option.isNone(handle)) return
        const running = yield* Ref.get(handle.value.running)
        if (Option.isNone(running)) return
        yield* Deferred.succeed(running.value.cancel, undefined)
        yield* Deferred.await(running.value.done)
      })

    const getSession = (sessionId: string) => Effect.flatMap(open(sessionId), infoOf)

    const record = (sessionId: string, draft: Draft) => Effect.flatMap(open(sessionId), (handle) => commit(handle, draft))

    const recover = (sessionId: string) =>
      Effect.gen(function* () {
        const handle = yield* open(sessionId)
        yield* closeLeftOpen(handle, false)
        return yield* infoOf(handle)
      })

    const compact = (sessionId: string): Effect.Effect<Option.Option<AgentEvent>, EngineError> =>
      Effect.gen(function* () {
        const handle = yield* open(sessionId)
        const running: RunningTurn = { cancel: yield* Deferred.make<void>(), done: yield* Deferred.make<void>() }
        const claimed = yield* Ref.modify(handle.running, (current) =>
          Option.isSome(current) ? [false, current] : [true, Option.some(running)]
        )
        if (!claimed) return yield* new TurnInProgress({ sessionId })
        return yield* compactHistory({ state: handle.state, gateway, emit: (draft) => commit(handle, draft) }, "request").pipe(
          Effect.ensuring(Ref.set(handle.running, Option.none()).pipe(Effect.zipRight(Deferred.succeed(running.done, undefined))))
        )
      })

    const setMode = (sessionId: string, mode: PermissionMode, by: string) =>
      Effect.flatMap(open(sessionId), (handle) => changeMode(handle, mode, by))

    return SessionEngine.of({ createSession, runTurn, cancelTurn, getSession, record, recover, compact, setMode })
  })

export const layer = (options: SessionEngineOptions = defaultEngineOptions) =>
  Layer.effect(SessionEngine, make(options))

const cancelledOutcome: TurnOutcome = { stopReason: "cancelled" }

const preview = (content: string): string => {
  const line = content.replace(/\s+/g, " ").trim()
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}
