import { Schema } from "effect"
import { ModelErrorCode, ModelStopReason, Usage } from "./model.js"
import { DecidedBy, PermissionDecision, PermissionMode, PermissionScope, RuleRef } from "./permissions.js"
import { RiskClass, ToolResultData } from "./tools.js"

/**
 * The event log's envelope. Every field is plain JSON (no transformations), so an event's
 * encoded form is the event itself: stores write `JSON.stringify(event)` and decode on read.
 */
export const SCHEMA_VERSION = 1

const envelope = {
  id: Schema.String,
  schemaVersion: Schema.Literal(SCHEMA_VERSION),
  sessionId: Schema.String,
  turnId: Schema.optional(Schema.String),
  sequence: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  /** ISO-8601 UTC. */
  timestamp: Schema.String
}

const defineEvent = <const T extends string, P extends Schema.Struct.Fields>(type: T, payload: P) =>
  Schema.Struct({ ...envelope, type: Schema.Literal(type), payload: Schema.Struct(payload) })

export const TurnStopReason = Schema.Literal(
  "final",
  "cancelled",
  "error",
  "max_steps",
  "max_tokens",
  "refusal"
)
export type TurnStopReason = typeof TurnStopReason.Type

export const MessageMode = Schema.Literal("queue", "steer")
export type MessageMode = typeof MessageMode.Type

export const SessionCreated = defineEvent("session.created", {
  cwd: Schema.String,
  /** Which client created it: `cli`, `rpc`, `acp`, `web`, `test`, `library`, ... */
  client: Schema.String,
  title: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String)
})

export const TurnStarted = defineEvent("turn.started", {
  promptPreview: Schema.String,
  /** The permission mode the turn ran under, for the audit trail. */
  permissionMode: Schema.optional(PermissionMode)
})

export const UserMessageEvent = defineEvent("user.message", {
  content: Schema.String,
  mode: MessageMode
})

export const ModelDelta = defineEvent("model.delta", { text: Schema.String })

export const ModelThinkingDeltaEvent = defineEvent("model.thinking_delta", {
  text: Schema.String,
  signature: Schema.optional(Schema.String),
  redacted: Schema.optional(Schema.String)
})

export const ModelToolCallRequested = defineEvent("model.tool_call_requested", {
  toolCallId: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})

export const ModelCompletedEvent = defineEvent("model.completed", {
  stopReason: ModelStopReason,
  usage: Usage
})

export const ModelFailed = defineEvent("model.failed", {
  reason: Schema.String,
  code: ModelErrorCode
})

export const PermissionRequested = defineEvent("permission.requested", {
  toolCallId: Schema.String,
  tool: Schema.String,
  risk: RiskClass,
  /** One line a person can judge: the command, the path, the server and tool. */
  summary: Schema.String,
  /** More to show before answering, e.g. the diff an edit would make. */
  detail: Schema.optional(Schema.String)
})

export const PermissionResolved = defineEvent("permission.resolved", {
  toolCallId: Schema.String,
  decision: PermissionDecision,
  scope: PermissionScope,
  by: DecidedBy,
  rule: Schema.optional(RuleRef),
  reason: Schema.optional(Schema.String)
})

export const ToolStarted = defineEvent("tool.started", {
  toolCallId: Schema.String,
  name: Schema.String
})

export const ToolCompleted = defineEvent("tool.completed", {
  toolCallId: Schema.String,
  output: Schema.String,
  isError: Schema.Boolean,
  durationMs: Schema.Finite,
  data: Schema.optional(ToolResultData)
})

/** A message waiting in a session's inbox, with the id clients edit it by. */
export const QueuedMessage = Schema.Struct({
  id: Schema.String,
  content: Schema.String
})
export type QueuedMessage = typeof QueuedMessage.Type

/** The whole inbox after a change: `nextTurn` starts turns, `nextStep` steers the running one. */
export const InboxUpdated = defineEvent("inbox.updated", {
  nextTurn: Schema.Array(QueuedMessage),
  nextStep: Schema.Array(QueuedMessage)
})

export const TurnCompleted = defineEvent("turn.completed", {
  stopReason: TurnStopReason,
  /** Set when stopReason is `error`: a model error code, `interrupted`, `store_failure`, ... */
  errorCode: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String)
})

/** The catalogue, keyed by type: decoding dispatches on `type` instead of trying each member. */
export const eventSchemas = {
  "session.created": SessionCreated,
  "turn.started": TurnStarted,
  "user.message": UserMessageEvent,
  "model.delta": ModelDelta,
  "model.thinking_delta": ModelThinkingDeltaEvent,
  "model.tool_call_requested": ModelToolCallRequested,
  "model.completed": ModelCompletedEvent,
  "model.failed": ModelFailed,
  "permission.requested": PermissionRequested,
  "permission.resolved": PermissionResolved,
  "tool.started": ToolStarted,
  "tool.completed": ToolCompleted,
  "inbox.updated": InboxUpdated,
  "turn.completed": TurnCompleted
} as const

export const AgentEvent = Schema.Union(
  SessionCreated,
  TurnStarted,
  UserMessageEvent,
  ModelDelta,
  ModelThinkingDeltaEvent,
  ModelToolCallRequested,
  ModelCompletedEvent,
  ModelFailed,
  PermissionRequested,
  PermissionResolved,
  ToolStarted,
  ToolCompleted,
  InboxUpdated,
  TurnCompleted
)
export type AgentEvent = typeof AgentEvent.Type
export type EventType = AgentEvent["type"]
export type EventOf<T extends EventType> = Extract<AgentEvent, { readonly type: T }>
export type PayloadOf<T extends EventType> = EventOf<T>["payload"]

export const isEventType = (type: string): type is EventType => Object.hasOwn(eventSchemas, type)
