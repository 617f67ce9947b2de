import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { withAttachments } from "../core/attachments.js"
import { approveMemory, deleteMemory, rejectMemory, type ReviewError } from "../core/memory-review.js"
import { type Draft, type RedoRequest, type RewindRequest, SessionEngine } from "../core/SessionEngine.js"
import type { EngineError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import {
  type AnswerNotOffered,
  type HostFrame,
  InvalidSessionLog,
  type PermissionAnswer,
  type PermissionNotPending,
  type PromptReceipt,
  type PromptRequest,
  type QueueAction,
  QueuedMessageNotFound,
  SessionExists,
  type SessionListFrame,
  type SessionListItem,
  type SessionView,
  type SetModelRequest,
  SubscriberLagged
} from "../domain/host.js"
import { SessionTitle } from "../domain/session-title.js"
import { importTail } from "../domain/import-tail.js"
import { describeProblem, planImport } from "../domain/session-log.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { RewindDrift, RewindResult, RewindUnavailable } from "../domain/rewind.js"
import { type DirectlyPullable, withPull } from "../core/direct-pull.js"
import { EventStore } from "../services/EventStore.js"
import { Ids } from "../services/Ids.js"
import { MemoryStore, type MemoryStoreFailure } from "../services/MemoryStore.js"
import { ModelGateway } from "../services/ModelGateway.js"
import { PermissionEngine } from "../services/PermissionEngine.js"
import { type McpError, McpHub } from "../services/McpHub.js"
import { Fanout } from "./fanout.js"
import { type ForkInput, forkSession } from "./fork.js"
import { subscriptionPull } from "./subscription.js"
import { PendingAsks } from "./pending-asks.js"
import { listSessionItems } from "./session-list.js"
import { deleteSessionTree } from "./session-delete.js"
import { makeSessionWatch, SessionWatchTiming } from "./session-watch.js"
import type { CommandsTarget, SlashCommandList } from "../domain/slash-commands.js"
import { SlashCommands } from "../services/SlashCommands.js"
import { expandPrompt, listCommandsIn } from "./slash-commands.js"

/** A prompt as every client sends it: one Schema (`src/domain/host.ts`) for the RPC, the cluster entity, the host and the engine. */
export type { PromptRequest }

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
    /** The model its turns ask (`anthropic/<id>`, `openai/<id>`, `scripted`); default: the engine's. */
    readonly model?: string
    readonly sessionId?: string
    /**
     * Resource URIs the first prompt will attach: each is read first, and the session is not
     * created when one cannot be (so a failed try leaves no empty session behind).
     */
    readonly attachments?: ReadonlyArray<string>
  }) => Effect.Effect<SessionView, EngineError | McpError>
  /** Newest activity first, archived ones too (clients filter), each with its status. */
  readonly listSessions: Effect.Effect<ReadonlyArray<SessionListItem>, EngineError>
  /**
   * The session list (`Snapshot`), then a session's new line whenever it changed (created,
   * renamed, archived, new events, status; also by another process on the store, seen within
   * a poll of its listing), at most one per session per coalescing interval, with a
   * `KeepAlive` now and then (`SessionWatchTiming`).
   */
  readonly watchSessions: Stream.Stream<SessionListFrame, EngineError>
  /** Records `session.renamed` with the title trimmed; a blank or too long one is the caller's bug (the RPC schema refuses it). */
  readonly renameSession: (sessionId: string, title: string, by: string) => Effect.Effect<void, EngineError>
  /** Records `session.archived`: archived, or brought back. */
  readonly archiveSession: (sessionId: string, archived: boolean, by: string) => Effect.Effect<void, EngineError>
  /**
   * Deletes the session and its subagent sessions for good (logs, listing lines, the memory
   * candidates they proposed that wait for review); refused while a turn runs on any of them,
   * here or in another process (TurnInProgress). Gives the ids deleted, the session first.
   */
  readonly deleteSession: (sessionId: string, by: string) => Effect.Effect<ReadonlyArray<string>, EngineError | MemoryStoreFailure>
  readonly getSession: (sessionId: string) => Effect.Effect<SessionView, EngineError>
  /**
   * Starts a turn (returning once its user message is durable) or queues the message. Content
   * that is `/name args` for a command of the session's workspace (`listCommands`) is sent as
   * the command's body with the arguments put in, and its `user.message` names the command and
   * its arguments; any other content, a `/` that names no command too, is sent as it is.
   */
  readonly prompt: (request: PromptRequest) => Effect.Effect<PromptReceipt, EngineError | McpError>
  /**
   * The slash commands a prompt can run: those of a session's workspace, or of a folder where
   * no session is yet (`cwd`), and the user's own; with the command files that cannot be used.
   */
  readonly listCommands: (target: CommandsTarget) => Effect.Effect<SlashCommandList, EngineError>
  readonly cancel: (sessionId: string) => Effect.Effect<void, EngineError>
  /** Makes `mode` the session's permission mode, durably; a running turn checks its next tool call under it. */
  readonly setMode: (sessionId: string, mode: PermissionMode, by: string) => Effect.Effect<void, EngineError>
  /**
   * Makes the request's model the session's now (`session.model_changed`, as a prompt's `model`
   * records it): its next turn asks it, a running turn ends on the model it started with.
   */
  readonly setModel: (sessionId: string, request: SetModelRequest) => Effect.Effect<void, EngineError>
  /**
   * Settles a waiting question. An answer whose `cover` names more than the question offered is
   * refused (AnswerNotOffered) and the question goes on waiting. Fails with an engine error only
   * where the question travels (a cluster's delivery).
   */
  readonly respondPermission: (sessionId: string, toolCallId: string, answer: PermissionAnswer) => Effect.Effect<void, PermissionNotPending | AnswerNotOffered | EngineError>
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
  /**
   * A person's rewind of the session's files, conversation or both, to before a turn or to a
   * sequence; refused while a turn runs (TurnInProgress) and, without `force`, when files
   * changed outside the agent since its last checkpoint (RewindDrift: nothing changed).
   */
  readonly rewind: (sessionId: string, request: RewindRequest) => Effect.Effect<RewindResult, EngineError | RewindDrift | RewindUnavailable>
  /** Undoes the session's last rewind not undone yet (files and conversation as they were before it). */
  readonly redo: (sessionId: string, request: RedoRequest) => Effect.Effect<RewindResult, EngineError | RewindDrift | RewindUnavailable>
  /** A new session with the history of this one up to `atSequence` (default: all of it); gives the new session. */
  readonly forkSession: (sessionId: string, input: ForkInput) => Effect.Effect<SessionView, EngineError | RewindUnavailable>
  /** Compacts the session's completed turns now (`/compact`); refused while a turn runs. */
  readonly compact: (sessionId: string) => Effect.Effect<Option.Option<AgentEvent>, EngineError>
  /**
   * Settles a memory candidate: the decision is recorded in the log of the session it came
   * from first, then the memory store follows.
   */
  readonly reviewMemory: (review: MemoryReview) => Effect.Effect<void, ReviewError>
  /** Forgets an approved memory, on the record of the session it came from. */
  readonly deleteMemory: (memoryId: string, by: string) => Effect.Effect<void, ReviewError>
  /**
   * Writes a whole exported session, all or nothing, after checking it is one valid log that
   * keeps the engine's invariants (`planImport`); `unverified` writes one that breaks them,
   * marked in its header, and `unverified` in the result names the first violation. The
   * file's events are followed by the host's `importTail`: the session starts in `default`
   * mode with an empty inbox, whatever the file recorded (`events` counts the file's).
   */
  readonly importSession: (
    events: ReadonlyArray<AgentEvent>,
    options?: { readonly unverified?: boolean }
  ) => Effect.Effect<ImportedSession, EngineError | InvalidSessionLog | SessionExists>
}

export interface ImportedSession {
  readonly sessionId: string
  readonly events: number
  /** The first invariant the log breaks, when it was imported unverified. */
  readonly unverified?: string | undefined
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
  // Optional: a host given no commands service runs none, and sends every prompt as it is.
  const commands = yield* Effect.serviceOption(SlashCommands)
  // Memory review records its decision through the engine, with the store and ids it needs.
  const ids = yield* Ids
  const memory = yield* MemoryStore
  const permissions = yield* PermissionEngine
  // An imported session goes on with this host's own model, not the one its file named.
  const gateway = yield* ModelGateway
  const review = Effect.provide(Context.make(SessionEngine, engine).pipe(Context.add(MemoryStore, memory), Context.add(Ids, ids)))

  /**
   * Refused as out of sequence, another process wrote to the session since its actor was
   * loaded here (a `run` on the same SQLite file): the actor was dropped, so one more try works
   * on the log as it is now.
   */
  const onCurrentLog = <A, E extends { readonly _tag: string }>(effect: Effect.Effect<A, E>) =>
    Effect.retry(effect, { times: 1, while: (error) => error._tag === "SequenceConflict" })

  const viewOf = (sessionId: string) =>
    Effect.gen(function* () {
      // Opening it may close a turn a dead process left open: a write.
      const info = yield* onCurrentLog(engine.getSession(sessionId))
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
      const { header } = yield* engine.getSession(request.sessionId)
      const expanded = yield* expandPrompt(commands, header.cwd, request.content)
      const content = yield* withAttachments(mcp, { sessionId: request.sessionId, cwd: header.cwd }, expanded.content, request.attachments ?? [])
      const { attachments: _read, attached, ...turn } = request
      // A command's body replaces the content: the blocks the client declared are not in it.
      const blocks = expanded.command === undefined && attached !== undefined ? { attached } : {}
      return yield* engine.prompt({ ...turn, content, ...blocks, ...(expanded.command === undefined ? {} : { command: expanded.command }) })
    })

  /** Opens a subscription in the scope; failing to open fails its first pull. */
  const openSubscription = (sessionId: string, afterSequence: number) =>
    Effect.gen(function* () {
      // Subscribe before reading anything: whatever commits from now on is in the buffer,
      // whatever committed before is in the store; overlap is skipped by sequence. The
      // baseline's read opens the session (an unknown one fails here).
      const live = yield* fanout.subscribe(sessionId)
      const baseline = yield* viewOf(sessionId)
      const stored = yield* Stream.toPull(store.replay(sessionId, afterSequence))
      return subscriptionPull({ sessionId, afterSequence, baseline, stored, live })
    }).pipe(Effect.catchAll((error) => Effect.succeed(Effect.fail(Option.some<EngineError | SubscriberLagged>(error)))))

  const subscribe = (sessionId: string, afterSequence: number): DirectlyPullable<HostFrame, EngineError | SubscriberLagged, never> =>
    withPull(Stream.fromPull(openSubscription(sessionId, afterSequence)), (scope) => Scope.extend(openSubscription(sessionId, afterSequence), scope))

  const sessionWatch = yield* makeSessionWatch({ store, working: engine.runningSessions, questions: pending.counts, fanout, timing: yield* SessionWatchTiming })

  /** A change to the session itself, committed through its actor. */
  const recordChange = (sessionId: string, draft: Draft) => Effect.asVoid(onCurrentLog(engine.record(sessionId, draft)))

  const titleCheck = Schema.is(SessionTitle)
  // A plain boolean: the schema's type guard would narrow `title` to never where it fails.
  const isTitle = (title: string): boolean => titleCheck(title)
  const renameSession = (sessionId: string, title: string, by: string) =>
    Effect.suspend(() =>
      isTitle(title)
        ? recordChange(sessionId, { type: "session.renamed", payload: { title: title.trim(), by } })
        : Effect.dieMessage(`renameSession: ${JSON.stringify(title.slice(0, 80))} is not a session title (blank or too long)`)
    )

  return AgentHost.of({
    createSession: Effect.fn("AgentHost.createSession")(createSession),
    listSessions: listSessionItems(store, engine.runningSessions, pending.counts),
    watchSessions: sessionWatch.watch,
    renameSession: Effect.fn("AgentHost.renameSession")(renameSession),
    archiveSession: Effect.fn("AgentHost.archiveSession")((sessionId, archived, by) => recordChange(sessionId, { type: "session.archived", payload: { archived, by } })),
    deleteSession: Effect.fn("AgentHost.deleteSession")((sessionId, by) =>
      deleteSessionTree(
        { store, memory, working: engine.runningSessions, evict: engine.evict, forget: sessionWatch.forget, forgetAnswers: permissions.forgetSession },
        sessionId,
        by
      )),
    getSession: Effect.fn("AgentHost.getSession")(viewOf),
    working: engine.runningSessions,
    resume: engine.resume,
    evict: engine.evict,
    prompt: Effect.fn("AgentHost.prompt")(prompt),
    listCommands: Effect.fn("AgentHost.listCommands")((target) =>
      "cwd" in target
        ? listCommandsIn(commands, target.cwd)
        : Effect.flatMap(engine.getSession(target.sessionId), (info) => listCommandsIn(commands, info.header.cwd))),
    cancel: Effect.fn("AgentHost.cancel")(engine.cancelTurn),
    setMode: Effect.fn("AgentHost.setMode")((sessionId, mode, by) => Effect.asVoid(engine.setMode(sessionId, mode, by))),
    setModel: Effect.fn("AgentHost.setModel")((sessionId, { model, by }) => Effect.asVoid(engine.setModel(sessionId, model, by))),
    respondPermission: Effect.fn("AgentHost.respondPermission")((sessionId, toolCallId, answer) =>
      pending.respond(sessionId, toolCallId, {
        decision: answer.decision,
        scope: answer.scope,
        by: answer.by ?? "user",
        ...(answer.reason === undefined ? {} : { reason: answer.reason }),
        ...(answer.client === undefined ? {} : { client: answer.client }),
        ...(answer.mode === undefined ? {} : { mode: answer.mode }),
        ...(answer.note === undefined ? {} : { note: answer.note }),
        ...(answer.cover === undefined ? {} : { cover: answer.cover })
      })),
    editQueue: Effect.fn("AgentHost.editQueue")(engine.editQueue),
    subscribe,
    compact: Effect.fn("AgentHost.compact")(engine.compact),
    rewind: Effect.fn("AgentHost.rewind")(engine.rewind),
    redo: Effect.fn("AgentHost.redo")(engine.redo),
    // The source is opened first, so a turn a dead process left open is closed before it is copied.
    forkSession: Effect.fn("AgentHost.forkSession")((sessionId, input) =>
      Effect.zipRight(engine.getSession(sessionId), forkSession(store, ids, sessionId, input)).pipe(Effect.flatMap(viewOf))),
    reviewMemory: Effect.fn("AgentHost.reviewMemory")(({ candidateId, decision, by, reason }) =>
      review(decision === "approve" ? Effect.asVoid(approveMemory(candidateId, by)) : rejectMemory(candidateId, by, reason))),
    deleteMemory: Effect.fn("AgentHost.deleteMemory")((memoryId, by) => review(Effect.asVoid(deleteMemory(memoryId, by)))),
    exportSession: (sessionId) =>
      // Opened first, so the log read is one whose turns are all closed.
      Stream.unwrap(Effect.as(engine.getSession(sessionId), store.replay(sessionId))),
    importSession: Effect.fn("AgentHost.importSession")((events, options) =>
      Effect.gen(function* () {
        const plan = planImport(events, { unverified: options?.unverified ?? false })
        if (plan._tag === "Refused") return yield* new InvalidSessionLog({ message: describeProblem(plan.problem) })
        const sessionId = plan.events[0]?.sessionId ?? ""
        if ((yield* store.head(sessionId))._tag === "Some") return yield* new SessionExists({ sessionId })
        // A log that once had this id (deleted) may have left answers "for the session" in this process: not this one's.
        yield* permissions.forgetSession(sessionId)
        // History is not authority: the file's events as they are, then the host's reset of what they could grant.
        const drafted = importTail(plan.events, { timestamp: new Date(yield* Clock.currentTimeMillis).toISOString(), model: gateway.info.id })
        const tailIds = yield* Effect.replicateEffect(ids.make("evt"), drafted.length)
        const tail = drafted.map((event, i) => ({ ...event, id: tailIds[i] ?? "" }))
        yield* store.appendAll([...plan.events, ...tail])
        const imported: ImportedSession = {
          sessionId,
          events: plan.events.length,
          unverified: plan.unverified === undefined ? undefined : describeProblem(plan.unverified)
        }
        return imported
      }))
  })
})

export const layer = Layer.scoped(AgentHost, make)
