import * as Schema from "effect/Schema"
import { AgentEvent, MessageMode, QueuedMessage, TurnStopReason } from "./events.js"
import { ChosenCover } from "./lasting-choices.js"
import { SessionId } from "./ids.js"
import { PermissionMode, PermissionScope } from "./permissions.js"
import { PlanExitMode, PlanNote } from "./plan.js"
import { RiskClass } from "./tools.js"
import type { CommandInvocation } from "./slash-commands.js"
import { TurnTerms } from "./turn-terms.js"
import { AttachedBlock } from "./attached-blocks.js"

/** A permission question a running turn is waiting on; any client may answer it. */
export const PendingPermission = Schema.Struct({
  toolCallId: Schema.String,
  turnId: Schema.String,
  tool: Schema.String,
  risk: RiskClass,
  summary: Schema.String,
  detail: Schema.optional(Schema.String),
  input: Schema.Unknown,
  /** Set when the question is a plan's (`exit_plan_mode`): the plan to approve or send back, answered with a `mode` or a `note`. */
  plan: Schema.optional(Schema.String)
})
export type PendingPermission = typeof PendingPermission.Type

export const Inbox = Schema.Struct({
  nextTurn: Schema.Array(QueuedMessage),
  nextStep: Schema.Array(QueuedMessage)
})
export type Inbox = typeof Inbox.Type

/** A session as a client sees it on connect: header, status, queue and open questions. */
export const SessionView = Schema.Struct({
  sessionId: Schema.String,
  cwd: Schema.String,
  client: Schema.String,
  title: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  createdAt: Schema.String,
  lastSequence: Schema.Finite,
  running: Schema.Boolean,
  inbox: Inbox,
  /** The mode turns run under now (the session's last `session.mode_changed`, else `default`). */
  permissionMode: PermissionMode,
  pendingPermissions: Schema.Array(PendingPermission)
})
export type SessionView = typeof SessionView.Type

/**
 * What a session is doing: `running` (a turn runs, here or in another process sharing the
 * store, or its inbox is being worked through), `interrupted` (its log has a turn that was
 * started and never completed, and nobody runs it: the process died), else `idle`.
 */
export const SessionStatus = Schema.Literal("idle", "running", "interrupted")
export type SessionStatus = typeof SessionStatus.Type

export const SessionListItem = Schema.Struct({
  sessionId: Schema.String,
  createdAt: Schema.String,
  updatedAt: Schema.String,
  lastSequence: Schema.Finite,
  /** `status === "running"`, kept for older clients. */
  running: Schema.Boolean,
  status: SessionStatus,
  /** The session's last `session.archived` says archived; clients filter, the listing keeps them. */
  archived: Schema.Boolean,
  cwd: Schema.optional(Schema.String),
  client: Schema.optional(Schema.String),
  /** The last `session.renamed`'s title, else `session.created`'s. */
  title: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  /** Set on a subagent's session: the session whose `task` call started it. */
  parentSessionId: Schema.optional(Schema.String),
  /**
   * How the session's last completed turn ended (left out before its first): `error` is a
   * session whose last turn failed. Fields added after `status` are optional and never widen
   * it, so a client that predates them reads the line as before.
   */
  lastStopReason: Schema.optional(TurnStopReason),
  /** Permission questions a turn of the session waits on in the listing server's process (left out: none). */
  waitingQuestions: Schema.optional(Schema.Int.pipe(Schema.positive()))
})
export type SessionListItem = typeof SessionListItem.Type

/**
 * What a session-list watcher receives: the whole list once, then a session's new line
 * whenever it changed (created, renamed, archived, new events, status) or that it is gone
 * (deleted), at most one per
 * session per coalescing interval, and a keep-alive now and then so proxies keep an idle
 * connection open.
 */
export const SessionListFrame = Schema.Union(
  Schema.TaggedStruct("Snapshot", { sessions: Schema.Array(SessionListItem) }),
  Schema.TaggedStruct("Updated", { session: SessionListItem }),
  /** The session was deleted (with its subagent sessions, each its own frame). */
  Schema.TaggedStruct("Removed", { sessionId: Schema.String }),
  Schema.TaggedStruct("KeepAlive", {})
)
export type SessionListFrame = typeof SessionListFrame.Type

/**
 * What a subscriber receives: first a baseline (the session now), then every event after
 * the sequence it asked for, then live events and status changes, in order, each once.
 */
export const HostFrame = Schema.Union(
  Schema.TaggedStruct("Baseline", { session: SessionView }),
  Schema.TaggedStruct("Event", { event: AgentEvent }),
  Schema.TaggedStruct("Status", { running: Schema.Boolean }),
  /** Sent over the network while nothing else is, so idle connections are not cut (clients skip it). */
  Schema.TaggedStruct("KeepAlive", {})
)
export type HostFrame = typeof HostFrame.Type

export const PromptReceipt = Schema.Union(
  /** The prompt started a turn; its user message is durable. */
  Schema.TaggedStruct("Started", { turnId: Schema.String, sequence: Schema.Finite }),
  /** The session was busy: the message waits in the inbox (durably). */
  Schema.TaggedStruct("Queued", { messageId: Schema.String, mode: MessageMode })
)
export type PromptReceipt = typeof PromptReceipt.Type

/** A model as clients name it: `anthropic/<id>`, `openai/<id>`, `openai-compatible/<id>`, `scripted`. */
export const ModelId = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))

/**
 * Makes `model` the session's model now, recorded as `session.model_changed` by `by` (nothing
 * when it already is), the event a prompt's `model` records. The session's next turn asks it;
 * a turn running meanwhile ends on the model it started with (its requests, budget and
 * replay are that model's). The host's request as it is and the cluster entity's payload; the
 * RPC payload is these fields with the session and `by` optional.
 */
export const SetModelRequest = Schema.Struct({ model: ModelId, by: Schema.String })
export type SetModelRequest = typeof SetModelRequest.Type

/**
 * A prompt, one shape at every hop: the RPC `Prompt`'s payload, the host's `prompt`, the
 * engine's (`TurnRequest`: attachments already read into the content, the slash command it
 * expanded), and the cluster entity's payload (without `sessionId`, the entity's key).
 */
export const PromptRequest = Schema.Struct({
  sessionId: SessionId,
  content: Schema.String.pipe(Schema.minLength(1)),
  /** For a busy session: wait for the next turn (`queue`, the default) or steer the running one at its next step (`steer`). */
  mode: Schema.optional(MessageMode),
  /** Becomes the session's mode (recorded) when it is another, also for a queued message; left out, the session's mode holds. */
  permissionMode: Schema.optional(PermissionMode),
  /**
   * Becomes the session's model (recorded) when it is another: `anthropic/<id>`, `openai/<id>`,
   * `scripted`; left out, the session's model holds. One that cannot be used ends the turn with
   * `model_unavailable`.
   */
  model: Schema.optional(ModelId),
  /** Which client sends it (`cli`, `web`, ...), recorded as who changed the mode or model (default `library`); over the HTTP API recorded as `rpc:<this>` (`rpc` when left out). */
  client: Schema.optional(Schema.String),
  /**
   * The blocks the client attached to `content` itself (a file named with `@path`, an editor's
   * embedded resource), each with where it lies in `content`; recorded on the `user.message`,
   * where views fold only these. Dropped when a slash command replaces the content.
   */
  attached: Schema.optional(Schema.Array(AttachedBlock)),
  /** URIs of MCP resources (served by the session's MCP servers) whose text is attached to the message. */
  attachments: Schema.optional(Schema.Array(Schema.String)),
  /** Model steps the turn this message starts may take (the server's limit when left out; not kept for a queued message). */
  maxSteps: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** Spending limits and an output schema for the turn this message starts (not kept for a queued message). */
  terms: Schema.optional(TurnTerms),
  /**
   * The client's id for this prompt: sent again (a retry after a dropped connection, a cluster
   * delivering twice), it starts nothing new and gets the first receipt; for a queued message
   * it is the message's id.
   */
  requestId: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)))
})
export type PromptRequest = typeof PromptRequest.Type

/**
 * A prompt as the engine takes it: the host has read its attachments into `content` and
 * expanded a slash command, which `command` names (recorded on the `user.message`).
 */
export type TurnRequest = Omit<PromptRequest, "attachments"> & {
  readonly command?: CommandInvocation
}

export const QueueAction = Schema.Union(
  Schema.TaggedStruct("Edit", { content: Schema.String.pipe(Schema.minLength(1)) }),
  Schema.TaggedStruct("Delete", {}),
  Schema.TaggedStruct("Promote", {})
)
export type QueueAction = typeof QueueAction.Type

export const PermissionAnswer = Schema.Struct({
  decision: Schema.Literal("allow", "deny"),
  scope: PermissionScope,
  /** Who answered: a person (`user`, the default) or a client's headless policy (`policy`). */
  by: Schema.optional(Schema.Literal("user", "policy")),
  /** Why, for the record: a policy's name. */
  reason: Schema.optional(Schema.String),
  /**
   * The client the answer came through, recorded on `permission.resolved`. Over the HTTP API
   * the server sets it (`rpc`, or `rpc:<this>`): a client cannot pass for the local terminal.
   */
  client: Schema.optional(Schema.String),
  /**
   * For a plan's question (`plan` in the pending question), with `allow`: the mode the plan is
   * carried out in (`default` when left out). Ignored for any other question.
   */
  mode: Schema.optional(PlanExitMode),
  /** For a plan's question, with `deny`: what should change, sent to the model. */
  note: Schema.optional(PlanNote),
  /**
   * With a "session" or "always" answer: the globs or command prefixes to remember, among those
   * the question offered (`lastingChoices` of its `lasting`). A cover it did not offer (wider,
   * another folder) is refused with AnswerNotOffered and the question goes on waiting. Left
   * out, the answer remembers what the question showed.
   */
  cover: Schema.optional(ChosenCover)
})
export type PermissionAnswer = typeof PermissionAnswer.Type

/**
 * The subscriber fell too far behind and was dropped. `lastSequence` is the last event the
 * host handed on; a reader that tracks what it actually received resumes from that instead.
 */
export class SubscriberLagged extends Schema.TaggedError<SubscriberLagged>()("SubscriberLagged", {
  sessionId: Schema.String,
  lastSequence: Schema.Finite
}) {
  override get message() {
    return `subscriber of ${this.sessionId} fell behind and was dropped; resume after sequence ${this.lastSequence}`
  }
}

export class PermissionNotPending extends Schema.TaggedError<PermissionNotPending>()("PermissionNotPending", {
  sessionId: Schema.String,
  toolCallId: Schema.String
}) {
  override get message() {
    return `no open permission question ${this.toolCallId} in session ${this.sessionId} (unknown, or already answered)`
  }
}

/** An answer naming a cover its question did not offer: nothing was decided, and the question still waits. */
export class AnswerNotOffered extends Schema.TaggedError<AnswerNotOffered>()("AnswerNotOffered", {
  sessionId: Schema.String,
  toolCallId: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the answer to ${this.toolCallId} in session ${this.sessionId} was refused: ${this.reason}; the question still waits`
  }
}

export class QueuedMessageNotFound extends Schema.TaggedError<QueuedMessageNotFound>()("QueuedMessageNotFound", {
  sessionId: Schema.String,
  messageId: Schema.String
}) {
  override get message() {
    return `no queued message ${this.messageId} in session ${this.sessionId}`
  }
}

export class InvalidSessionLog extends Schema.TaggedError<InvalidSessionLog>()("InvalidSessionLog", {
  message: Schema.String
}) {}

export class SessionExists extends Schema.TaggedError<SessionExists>()("SessionExists", {
  sessionId: Schema.String
}) {
  override get message() {
    return `session ${this.sessionId} already exists; nothing was imported`
  }
}
