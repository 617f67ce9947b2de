import { Rpc, RpcGroup } from "@effect/rpc"
import * as Schema from "effect/Schema"
import { EventDecodeError, SequenceConflict, SessionNotFound, StoreFailure, TurnInProgress } from "../domain/errors.js"
import { AgentEvent } from "../domain/events.js"
import { InvalidSessionId, SessionId } from "../domain/ids.js"
import { PermissionMode, ProjectTrust, RememberedAnswer } from "../domain/permissions.js"
import { RewindDrift, RewindResult, RewindTarget, RewindUnavailable, RewindWhat } from "../domain/rewind.js"
import { SessionTitle } from "../domain/session-title.js"
import { CommandsTarget, SlashCommandList } from "../domain/slash-commands.js"
import { McpError } from "../services/McpHub.js"
import { PermissionStoreError, ProjectTrustError, RememberedAnswerNotFound } from "../services/PermissionEngine.js"
import { Memory, MemoryCandidate, MemoryNotFound, MemoryStoreFailure } from "../services/MemoryStore.js"
import {
  AnswerNotOffered,
  HostFrame,
  InvalidSessionLog,
  PermissionAnswer,
  PermissionNotPending,
  PromptRequest,
  PromptReceipt,
  QueueAction,
  QueuedMessageNotFound,
  SessionExists,
  SessionListFrame,
  SessionListItem,
  SessionView,
  SetModelRequest,
  SubscriberLagged
} from "../domain/host.js"

/** Where the API is mounted on a server (and on the local host's socket). */
export const rpcPath = "/rpc"

/** What the engine may fail with, as it travels over the wire. */
export const EngineFailure = Schema.Union(SessionNotFound, TurnInProgress, SequenceConflict, StoreFailure, EventDecodeError, InvalidSessionId)

export const SubscribeInput = Schema.Struct({
  sessionId: SessionId,
  /** Events after this sequence are replayed before live ones; 0 replays the whole session. */
  afterSequence: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 })
})

/**
 * The one API every client uses (CLI with --server, the web timeline, other Effect apps).
 * Served over HTTP with NDJSON framing so streams flow as they happen.
 */
export class AgentRpcs extends RpcGroup.make(
  Rpc.make("CreateSession", {
    payload: {
      cwd: Schema.String,
      title: Schema.optional(Schema.String),
      client: Schema.optional(Schema.String),
      /** The model its turns ask (`anthropic/<id>`, `openai/<id>`, `scripted`); default: the server's. */
      model: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))),
      /** The first prompt's attachments, read before the session is created: one that fails creates nothing. */
      attachments: Schema.optional(Schema.Array(Schema.String))
    },
    success: SessionView,
    error: Schema.Union(EngineFailure, McpError)
  }),
  Rpc.make("ListSessions", { success: Schema.Array(SessionListItem), error: EngineFailure }),
  /**
   * The session list as it changes: a `Snapshot`, then an `Updated` line per changed session (at
   * most one per session per quarter second), and a `KeepAlive` every 15 s on a quiet connection.
   */
  Rpc.make("WatchSessions", { success: SessionListFrame, error: EngineFailure, stream: true }),
  /** A new title (stored trimmed; blank or over 200 characters is refused), recorded as `session.renamed` by `rpc:<by>` (`rpc` when left out: the transport names itself, origin.ts). */
  Rpc.make("RenameSession", {
    payload: { sessionId: SessionId, title: SessionTitle, by: Schema.optional(Schema.String) },
    error: EngineFailure
  }),
  /** Archives the session (`archived: true`) or brings it back, recorded as `session.archived` by `rpc:<by>` (`rpc` when left out: the transport names itself, origin.ts). */
  Rpc.make("ArchiveSession", {
    payload: { sessionId: SessionId, archived: Schema.Boolean, by: Schema.optional(Schema.String) },
    error: EngineFailure
  }),
  /**
   * Deletes the session and its subagent sessions for good (their logs, listing lines and the
   * memory candidates they proposed that wait for review); refused with TurnInProgress while a
   * turn runs on any of them. Gives the ids deleted, the session first. Watchers get `Removed`.
   */
  Rpc.make("DeleteSession", {
    payload: { sessionId: SessionId, by: Schema.optional(Schema.String) },
    success: Schema.Array(Schema.String),
    error: Schema.Union(EngineFailure, MemoryStoreFailure)
  }),
  Rpc.make("GetSession", { payload: { sessionId: SessionId }, success: SessionView, error: EngineFailure }),
  /**
   * The slash commands a prompt can run (`{ sessionId }`: the session's workspace's; `{ cwd }`: a
   * folder's, before a session exists there), and the user's own, with the command files that
   * cannot be used. Run one by sending `/name args` as a `Prompt`.
   */
  Rpc.make("ListCommands", { payload: CommandsTarget, success: SlashCommandList, error: EngineFailure }),
  Rpc.make("Prompt", { payload: PromptRequest, success: PromptReceipt, error: Schema.Union(EngineFailure, McpError) }),
  Rpc.make("Subscribe", {
    payload: SubscribeInput,
    success: HostFrame,
    error: Schema.Union(EngineFailure, SubscriberLagged),
    stream: true
  }),
  Rpc.make("Cancel", { payload: { sessionId: SessionId }, error: EngineFailure }),
  /** Makes `mode` the session's permission mode, recorded in its log with who set it (default `rpc`). */
  Rpc.make("SetMode", {
    payload: { sessionId: SessionId, mode: PermissionMode, by: Schema.optional(Schema.String) },
    error: EngineFailure
  }),
  /**
   * Makes `model` the session's model now, recorded as `session.model_changed` by `rpc:<by>` (`rpc`
   * when left out): its next turn asks it; a turn running meanwhile ends on the model it started with.
   */
  Rpc.make("SetModel", {
    payload: { sessionId: SessionId, ...SetModelRequest.fields, by: Schema.optional(Schema.String) },
    error: EngineFailure
  }),
  /** Refused with AnswerNotOffered (the question still waits) when `answer.cover` names more than the question offered. */
  Rpc.make("RespondPermission", {
    payload: { sessionId: SessionId, toolCallId: Schema.String, answer: PermissionAnswer },
    error: Schema.Union(PermissionNotPending, AnswerNotOffered, EngineFailure)
  }),
  Rpc.make("EditQueue", {
    payload: { sessionId: SessionId, messageId: Schema.String, action: QueueAction },
    error: Schema.Union(EngineFailure, QueuedMessageNotFound)
  }),
  Rpc.make("ExportSession", {
    payload: { sessionId: SessionId },
    success: AgentEvent,
    error: EngineFailure,
    stream: true
  }),
  Rpc.make("Compact", {
    payload: { sessionId: SessionId },
    success: Schema.Struct({ compacted: Schema.Boolean, summary: Schema.optional(Schema.String) }),
    error: EngineFailure
  }),
  /**
   * A person's rewind of the session's files, conversation or both (default), to before a turn
   * (1-based) or to a sequence; `path` restores one workspace-relative file (files only).
   * Without `force`, files changed outside the agent since the session's last checkpoint stop
   * it with RewindDrift and nothing changes. Recorded as `rpc:<by>` (`rpc` when left out: the transport names itself, origin.ts).
   */
  Rpc.make("Rewind", {
    payload: {
      sessionId: SessionId,
      to: RewindTarget,
      what: Schema.optional(RewindWhat),
      path: Schema.optional(Schema.String),
      force: Schema.optional(Schema.Boolean),
      by: Schema.optional(Schema.String)
    },
    success: RewindResult,
    error: Schema.Union(EngineFailure, RewindDrift, RewindUnavailable)
  }),
  /** Undoes the session's last rewind not undone yet: its files and conversation as they were before it. */
  Rpc.make("Redo", {
    payload: { sessionId: SessionId, force: Schema.optional(Schema.Boolean), by: Schema.optional(Schema.String) },
    success: RewindResult,
    error: Schema.Union(EngineFailure, RewindDrift, RewindUnavailable)
  }),
  /** A new session with this one's history up to `atSequence` (default: all); `session.forked` says where from. */
  Rpc.make("ForkSession", {
    payload: { sessionId: SessionId, atSequence: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))), by: Schema.optional(Schema.String) },
    success: SessionView,
    error: Schema.Union(EngineFailure, RewindUnavailable)
  }),
  Rpc.make("ListMemoryCandidates", { success: Schema.Array(MemoryCandidate), error: MemoryStoreFailure }),
  Rpc.make("ListMemories", {
    payload: { workspaceRoot: Schema.optional(Schema.String) },
    success: Schema.Array(Memory),
    error: MemoryStoreFailure
  }),
  Rpc.make("ReviewMemory", {
    payload: {
      candidateId: Schema.String,
      decision: Schema.Literal("approve", "reject"),
      reason: Schema.optional(Schema.String),
      by: Schema.optional(Schema.String)
    },
    error: Schema.Union(EngineFailure, MemoryNotFound, MemoryStoreFailure)
  }),
  Rpc.make("DeleteMemory", {
    payload: { memoryId: Schema.String, by: Schema.optional(Schema.String) },
    error: Schema.Union(EngineFailure, MemoryNotFound, MemoryStoreFailure)
  }),
  /** `unverified`: write a log that breaks the engine's invariants, marked in its header (the result names the first violation). */
  Rpc.make("ImportSession", {
    payload: { events: Schema.Array(AgentEvent), unverified: Schema.optional(Schema.Boolean) },
    success: Schema.Struct({ sessionId: Schema.String, events: Schema.Finite, unverified: Schema.optional(Schema.String) }),
    error: Schema.Union(EngineFailure, InvalidSessionLog, SessionExists)
  }),
  /** Whether a workspace's own rules file is trusted, with the allow rules trust would turn on. */
  Rpc.make("GetProjectTrust", {
    payload: { workspaceRoot: Schema.String },
    success: ProjectTrust,
    error: PermissionStoreError
  }),
  /** Trusts a workspace's rules file as shown: `sha256` from GetProjectTrust, refused if the file changed since. */
  Rpc.make("TrustProject", {
    payload: { workspaceRoot: Schema.String, sha256: Schema.String, by: Schema.optional(Schema.String) },
    success: ProjectTrust,
    error: Schema.Union(PermissionStoreError, ProjectTrustError)
  }),
  /** The remembered answers in force ("always" ones and the server's "session" ones), of one workspace or all. */
  Rpc.make("ListRememberedAnswers", {
    payload: { workspaceRoot: Schema.optional(Schema.String) },
    success: Schema.Array(RememberedAnswer),
    error: PermissionStoreError
  }),
  /** Forgets the answer with this id and only it; kept in the approvals file as revoked by `rpc:<by>` (`rpc` when left out). */
  Rpc.make("RevokeRememberedAnswer", {
    payload: { id: Schema.String, by: Schema.optional(Schema.String) },
    success: RememberedAnswer,
    error: Schema.Union(PermissionStoreError, RememberedAnswerNotFound)
  })
) {}
