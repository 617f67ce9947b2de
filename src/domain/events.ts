import * as Schema from "effect/Schema"
import { CheckpointTrigger, NotKept } from "./checkpoints.js"
import { HookDecision, HookEventName, HookSource } from "./hooks.js"
import { ModelErrorCode, ModelStopReason, Usage } from "./model.js"
import { AnswerCover, DecidedBy, PermissionDecision, PermissionMode, PermissionScope, RuleRef } from "./permissions.js"
import { SandboxProfile } from "./sandbox.js"
import { TodoItem } from "./tasks.js"
import { RiskClass, ToolResultData } from "./tools.js"
import { TurnTerms } from "./turn-terms.js"
import { Spend } from "./spend.js"
import { PlanDecision, PlanExitMode, PlanNote } from "./plan.js"
import { CommandInvocation } from "./slash-commands.js"
import { AttachedBlock } from "./attached-blocks.js"

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
  "refusal",
  // a spending limit of the turn (cost or tokens) was reached at a step boundary
  "budget"
)
export type TurnStopReason = typeof TurnStopReason.Type

export const MessageMode = Schema.Literal("queue", "steer")
export type MessageMode = typeof MessageMode.Type

export const SessionCreated = defineEvent("session.created", {
  cwd: Schema.String,
  /** Which client created it: `cli`, `acp`, `test`, `library`, ..., or `rpc` / `rpc:<name>` over the HTTP API (set by the transport). */
  client: Schema.String,
  title: Schema.optional(Schema.String),
  /** The model the session's turns ask (`anthropic/<id>`, `openai/<id>`, `scripted`) until a `session.model_changed`. */
  model: Schema.optional(Schema.String),
  /**
   * The wire API that model's adapter speaks, where its provider has several: `responses` or
   * `chat-completions` for `openai/<id>` (which one depends on the base URL). Informational:
   * replay reads the conversation, not this.
   */
  api: Schema.optional(Schema.String),
  /**
   * Set only by an import with `--unverified` (`ImportSession` with `unverified`) of a log that
   * breaks the engine's invariants: the first violation, so an audit can tell the log is not
   * one this engine wrote. Absent on every session the engine created or imported verified.
   */
  unverifiedImport: Schema.optional(Schema.Struct({ problem: Schema.String })),
  /**
   * Set on a subagent's session: the session, turn and `task` tool call that started it, and
   * the agent definition it runs (the parent records `subagent.started` with this session's id).
   */
  parent: Schema.optional(
    Schema.Struct({ sessionId: Schema.String, turnId: Schema.String, toolCallId: Schema.String, agent: Schema.String, depth: Schema.Int })
  )
})

/**
 * The session's permission mode changed; turns from here on run under it. The current mode
 * is the last of these in the log (`default` before the first).
 */
export const SessionModeChanged = defineEvent("session.mode_changed", {
  mode: PermissionMode,
  /**
   * Which client changed it: `cli`, `acp`, `import`, or `rpc` when it came over the HTTP API
   * (`rpc:<name>` with the name the client gave itself, e.g. `rpc:web`, `rpc:cli`). The
   * transport sets it: a client of the API cannot record itself as `cli`.
   */
  by: Schema.String
})

/**
 * The model the session's turns ask changed (a prompt named another, e.g. `run --model`); turns
 * from here on ask it, in this process or another. The current model is the last of these in
 * the log, else `session.created`'s.
 */
export const SessionModelChanged = defineEvent("session.model_changed", {
  /** As `session.created`'s `model`: `anthropic/<id>`, `openai/<id>`, `scripted`. */
  model: Schema.String,
  /** Which client changed it, as `session.mode_changed`'s `by`. */
  by: Schema.String
})

/** The session's title changed: by a client (who), or `auto` from the first prompt of an untitled session. The last one holds. */
export const SessionRenamed = defineEvent("session.renamed", {
  title: Schema.String,
  by: Schema.String
})

/** The session was archived (clients hide it from their lists) or brought back; the last one holds. */
export const SessionArchived = defineEvent("session.archived", {
  archived: Schema.Boolean,
  by: Schema.String
})

/**
 * The session was forked from another one: the first event after the new session's
 * `session.created`. The source's events 2..`copiedThrough` follow it, re-sequenced (one
 * later each) with new ids, their types, turn ids, timestamps and payloads kept (sequence
 * references in payloads moved to the new numbering), so the fork replays on its own.
 * `copiedThrough` is below `atSequence` when that fell inside a turn: the copy stops at the
 * end of the last turn completed before it.
 */
export const SessionForked = defineEvent("session.forked", {
  sourceSessionId: Schema.String,
  atSequence: Schema.Int,
  copiedThrough: Schema.Int
})

export const TurnStarted = defineEvent("turn.started", {
  promptPreview: Schema.String,
  /** The permission mode the turn ran under, for the audit trail. */
  permissionMode: Schema.optional(PermissionMode),
  /** The cluster runner that ran the turn (`host:port`); absent on a single process. */
  runner: Schema.optional(Schema.String),
  /** The spending limits and output schema the prompt set for the turn. */
  terms: Schema.optional(TurnTerms)
})

export const UserMessageEvent = defineEvent("user.message", {
  content: Schema.String,
  mode: MessageMode,
  /** The client's id for the prompt: one delivered twice (a cluster delivers at least once) starts one turn. */
  requestId: Schema.optional(Schema.String),
  /**
   * Set when the person typed a slash command (`/name args`): the command and its arguments as
   * typed and the file it came from; `content` is then the command's expanded body, what the
   * model is given. Replay reads `content` only, so the file need not exist any more.
   */
  command: Schema.optional(CommandInvocation),
  /**
   * The files and resources attached to the message, each with where its block lies in
   * `content`, as whoever built the content recorded them. Views fold only these: text shaped
   * like a block but not declared here is shown. Left out: nothing is folded.
   */
  attached: Schema.optional(Schema.Array(AttachedBlock))
})

export const ModelDelta = defineEvent("model.delta", { text: Schema.String })

export const ModelThinkingDeltaEvent = defineEvent("model.thinking_delta", {
  text: Schema.String,
  signature: Schema.optional(Schema.String),
  redacted: Schema.optional(Schema.String),
  /**
   * Ends an OpenAI Responses reasoning item (text empty): its `encrypted_content`, which the
   * Responses adapter sends back with the conversation (requests are sent with `store: false`,
   * so OpenAI keeps nothing between steps). Other adapters ignore it.
   */
  encryptedReasoning: Schema.optional(Schema.String)
})

export const ModelToolCallRequested = defineEvent("model.tool_call_requested", {
  toolCallId: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})

export const ModelCompletedEvent = defineEvent("model.completed", {
  stopReason: ModelStopReason,
  usage: Usage,
  /** The model that answered (the id `--model` selected), for cost and traces. */
  model: Schema.optional(Schema.String),
  /** What the request cost in USD: reported by the provider, or from the price table; absent when the model has no known price. */
  costUsd: Schema.optional(Schema.Finite.pipe(Schema.nonNegative()))
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
  detail: Schema.optional(Schema.String),
  /** Only a person may say yes (a protected path, an ask rule, an unconfined command): a headless policy short of allow-all says no. */
  firm: Schema.optional(Schema.Literal(true)),
  /** The call reaches outside the workspace: a headless policy short of allow-all says no. */
  outsideWorkspace: Schema.optional(Schema.Literal(true)),
  /**
   * What a "session" or "always" answer would cover, shown with the question and stored as
   * shown; absent when nothing in the call can be remembered safely (an answer holds once).
   */
  lasting: Schema.optional(AnswerCover)
})

export const PermissionResolved = defineEvent("permission.resolved", {
  toolCallId: Schema.String,
  decision: PermissionDecision,
  scope: PermissionScope,
  by: DecidedBy,
  rule: Schema.optional(RuleRef),
  reason: Schema.optional(Schema.String),
  /** The hook command that decided (`by: hook`) or changed the question (an ask where the rules allowed). */
  hook: Schema.optional(Schema.String),
  /**
   * For an answer (`by: user` or `policy`): the client it came through, `cli`, `acp`, or `rpc`
   * (`rpc:<name>` with the name the client gave itself) when it came over the HTTP API; the
   * transport sets it, a client cannot. Absent in logs written before it and for the engine's own decisions.
   */
  client: Schema.optional(Schema.String),
  /** What a "session" or "always" answer stored, with the id `custom-agent permissions revoke` takes. */
  remembered: Schema.optional(Schema.Struct({ id: Schema.String, ...AnswerCover.fields }))
})

/**
 * In plan mode the model proposed a plan (its `exit_plan_mode` call): the question a person
 * answers, in place of a `permission.requested`. The plan is the model's text, shown, never run.
 */
export const PlanProposed = defineEvent("plan.proposed", {
  toolCallId: Schema.String,
  /** Markdown, as the model wrote it. */
  plan: Schema.String
})

/**
 * How the plan's question ended. `approved` only by a person (`by: user`): the session then
 * leaves plan mode for `mode`, recorded next as `session.mode_changed` by the same client.
 * `rejected` by a person (with their `note`, which the model gets) or by a headless policy
 * (`by: policy`, `reason`): the session stays in plan mode.
 */
export const PlanResolved = defineEvent("plan.resolved", {
  toolCallId: Schema.String,
  decision: PlanDecision,
  by: Schema.Literal("user", "policy"),
  /** Approved: the mode the person chose to carry the plan out in. */
  mode: Schema.optional(PlanExitMode),
  /** The client the answer came through (`cli`, `acp`, `rpc:web`, ...), set by the transport as for `permission.resolved`. */
  client: Schema.optional(Schema.String),
  /** Rejected by a person: what they want changed. */
  note: Schema.optional(PlanNote),
  /** Why, when a policy answered or the turn was cancelled. */
  reason: Schema.optional(Schema.String)
})

export const ToolStarted = defineEvent("tool.started", {
  toolCallId: Schema.String,
  name: Schema.String,
  /** Where the call runs, for tools that run a local process (shell, stdio MCP servers). */
  sandbox: Schema.optional(SandboxProfile)
})

/**
 * Output a running call produced (a shell command's stdout and stderr, interleaved), recorded
 * while it runs so that every client, one attaching mid-call too, sees what ran so far. Bounded
 * and coalesced by the engine (`src/core/tool-output.ts`): what the model reads is only the
 * call's `tool.completed`, which carries the whole bounded output as before.
 */
export const ToolOutput = defineEvent("tool.output", {
  toolCallId: Schema.String,
  /** The output since the call's previous `tool.output`, as the tool decoded it (UTF-8); raw content, never sanitized. */
  text: Schema.String,
  /** Bytes of output before `text` that were not recorded (over the call's budget). */
  skipped: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  /** The last one of the call: its budget is spent, the rest of its output is only in its `tool.completed`. */
  capped: Schema.optional(Schema.Literal(true))
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
  content: Schema.String,
  /** The slash command `content` is the expansion of (see `user.message`); dropped when the message is edited. */
  command: Schema.optional(CommandInvocation),
  /** The blocks attached to `content` (see `user.message`); dropped when the message is edited. */
  attached: Schema.optional(Schema.Array(AttachedBlock))
})
export type QueuedMessage = typeof QueuedMessage.Type

/** The whole inbox after a change: `nextTurn` starts turns, `nextStep` steers the running one. */
export const InboxUpdated = defineEvent("inbox.updated", {
  nextTurn: Schema.Array(QueuedMessage),
  nextStep: Schema.Array(QueuedMessage)
})

/** Where a piece of a request's context came from, in the order requests are built. */
export const ContextSourceKind = Schema.Literal("system", "instructions", "memory", "skills", "mcp")
export type ContextSourceKind = typeof ContextSourceKind.Type

/**
 * The text of a context source, recorded the first time the session uses it and whenever
 * it changes, so every request can be rebuilt from the log without re-reading files.
 */
export const ContextSourceRecorded = defineEvent("context.source", {
  kind: ContextSourceKind,
  /** A path, a server name, or the source's own name. */
  id: Schema.String,
  hash: Schema.String,
  text: Schema.String
})

export const ContextSourceUse = Schema.Struct({
  kind: ContextSourceKind,
  id: Schema.String,
  hash: Schema.String,
  tokens: Schema.Finite
})

/** What one model request was built from, with token counts per source. */
export const ContextBuilt = defineEvent("context.built", {
  sources: Schema.Array(ContextSourceUse),
  historyTokens: Schema.Finite,
  toolsTokens: Schema.Finite,
  totalTokens: Schema.Finite,
  budget: Schema.Finite,
  tools: Schema.Array(Schema.String),
  /** The last event a compaction summary replaces, if the history is compacted. */
  compactedThrough: Schema.optional(Schema.Finite),
  /**
   * The `task.updated` whose list the request carried (appended to the system prompt,
   * verbatim, never summarized) and its tokens; absent while the session has no task list.
   */
  tasks: Schema.optional(Schema.Struct({ sequence: Schema.Int, tokens: Schema.Finite }))
})

/**
 * The fixed sections a compaction summary is asked for. Each holds the model's text for it
 * (empty when the model left it out); together with the previous summary they replace the
 * compacted events in the model's view.
 */
export const SummarySections = Schema.Struct({
  goal: Schema.String,
  decisions: Schema.String,
  progress: Schema.String,
  nextStep: Schema.String,
  openQuestions: Schema.String
})
export type SummarySections = typeof SummarySections.Type

/**
 * Older turns summarized for the model. The log keeps every original event; later requests
 * use the summary instead of the events up to `throughSequence`.
 */
export const ContextCompacted = defineEvent("context.compacted", {
  /** The summary as the model wrote it (all sections). */
  summary: Schema.String,
  /** The first event this compaction replaced (the one after the previous summary's range). */
  fromSequence: Schema.optional(Schema.Int),
  throughSequence: Schema.Finite,
  /** The summary split into its sections (absent in logs written before structured summaries). */
  sections: Schema.optional(SummarySections),
  /**
   * Workspace files changed by tool calls in `fromSequence..throughSequence`, taken from the
   * log (edit results and checkpoints), never from the model; sorted.
   */
  changedFiles: Schema.optional(Schema.Array(Schema.String)),
  /** How many summary requests it took: more than one when the history had to be summarized in pieces to fit the window. */
  pieces: Schema.optional(Schema.Int),
  /** What the summary requests spent (absent in logs written before it was recorded); counted into the session's cost and the turn's budget. */
  spend: Schema.optional(Spend),
  tokensBefore: Schema.Finite,
  tokensAfter: Schema.Finite,
  /** The turns the model no longer sees verbatim. */
  turns: Schema.Array(Schema.String),
  trigger: Schema.Literal("budget", "request")
})

/**
 * The agent's task list after a `todo_write` call: the whole list, as the call gave it. Every
 * later request carries the last one (a rewind brings back the one in force at its target).
 */
export const TaskUpdated = defineEvent("task.updated", {
  toolCallId: Schema.String,
  todos: Schema.Array(TodoItem)
})

export const MemoryScope = Schema.Literal("project", "user")
export type MemoryScope = typeof MemoryScope.Type

export const MemoryEvidence = Schema.Struct({
  sessionId: Schema.String,
  fromSequence: Schema.Finite,
  toSequence: Schema.Finite
})
export type MemoryEvidence = typeof MemoryEvidence.Type

/** Something worth remembering, with the conversation it came from; no effect until approved. */
export const MemoryCandidateProposed = defineEvent("memory.candidate_proposed", {
  candidateId: Schema.String,
  text: Schema.String,
  scope: MemoryScope,
  evidence: MemoryEvidence
})

export const MemoryApproved = defineEvent("memory.approved", {
  candidateId: Schema.String,
  memoryId: Schema.String,
  text: Schema.String,
  scope: MemoryScope,
  /** Who approved it: the client the person used. */
  by: Schema.String
})

export const MemoryRejected = defineEvent("memory.rejected", {
  candidateId: Schema.String,
  by: Schema.String,
  reason: Schema.optional(Schema.String)
})

export const MemoryDeleted = defineEvent("memory.deleted", {
  memoryId: Schema.String,
  by: Schema.String
})

/** A skill's body was loaded into the conversation on demand. */
export const SkillLoaded = defineEvent("skill.loaded", {
  toolCallId: Schema.String,
  name: Schema.String,
  path: Schema.String
})

/**
 * An MCP server of the session started, failed, died, changed its tools, was left out
 * (`skipped`: a project's server not trusted or named like the user's), or was not ready when
 * the start-up wait before a model step ended (`slow`: its tools join a later step).
 */
export const McpServerNotice = defineEvent("mcp.notice", {
  server: Schema.String,
  state: Schema.Literal("ready", "failed", "exited", "tools_changed", "skipped", "slow"),
  message: Schema.optional(Schema.String)
})

/**
 * The project's own rules (and settings) as a turn found them, recorded when their content or
 * trust changed: which content, how many allow rules, whether it opens the network, and
 * whether (and by whom) it was trusted. Untrusted, only its deny and ask rules apply.
 */
export const ProjectRulesRecorded = defineEvent("permission.project_rules", {
  file: Schema.String,
  sha256: Schema.String,
  allowRules: Schema.Int,
  /** The project's settings open the sandbox's network (honoured only once trusted). */
  opensNetwork: Schema.Boolean,
  trusted: Schema.Boolean,
  trustedAt: Schema.optional(Schema.String),
  trustedBy: Schema.optional(Schema.String),
  /** How many hook commands the project configures (they run only once trusted); absent when none. */
  hooks: Schema.optional(Schema.Int)
})

/**
 * One hook command ran (see `docs/hooks.md`): which event and matcher, the command and where it
 * is configured, how it ended, what it decided, and its output cut to a few KiB. `context` is
 * the exact text the model gets from it (a prompt's added context, a Stop hook's reason to go
 * on, a PostToolUse hook's feedback): the conversation is rebuilt from it, so replay stays exact.
 */
export const HookRan = defineEvent("hook.ran", {
  event: HookEventName,
  matcher: Schema.optional(Schema.String),
  command: Schema.String,
  source: HookSource,
  /** The tool call it ran for (PreToolUse, PermissionRequest, PostToolUse). */
  toolCallId: Schema.optional(Schema.String),
  /** The `user.message` it ran for (UserPromptSubmit): a block takes that prompt out of the conversation. */
  promptSequence: Schema.optional(Schema.Int),
  /** `null` when it was killed (timeout, cancel) or could not start. */
  exitCode: Schema.NullOr(Schema.Int),
  timedOut: Schema.Boolean,
  decision: Schema.optional(HookDecision),
  reason: Schema.optional(Schema.String),
  /** Why the decision was not followed (a hook cannot allow what the rules deny; a second Stop continuation). */
  overruled: Schema.optional(Schema.String),
  context: Schema.optional(Schema.String),
  /** stdout then stderr, cut; a run that could not start says why here. */
  output: Schema.String,
  durationMs: Schema.Finite
})

/**
 * A snapshot of the workspace's files in the private checkpoint store, taken in a turn at a
 * step whose tools may change the workspace: before its first such tool (only when the
 * workspace differs from the session's last checkpoint, or the session has none) and after its
 * tools completed (only when something changed). `parent` is the session's previous
 * checkpoint; `changed` the paths that differ from it (empty for a session's first).
 */
export const CheckpointRecorded = defineEvent("checkpoint.recorded", {
  treeId: Schema.String,
  parent: Schema.optional(Schema.String),
  changed: Schema.Array(Schema.String),
  /** Files over the size caps, left out of the snapshot. */
  notKept: Schema.Array(NotKept),
  trigger: CheckpointTrigger
})

/**
 * Workspace files were restored from a checkpoint (a person's rewind or redo, never the
 * model's): the tree and the sequence of the `checkpoint.recorded` it came from, and the paths
 * written or removed. A restore to files that were themselves put together by earlier restores
 * records one per tree, in one append. `drift` (named on the action's first) are the paths that
 * had changed since the session's last checkpoint by something other than the agent and were
 * overwritten because the person said so (`forced`).
 */
export const CheckpointRestored = defineEvent("checkpoint.restored", {
  treeId: Schema.String,
  checkpointSequence: Schema.Int,
  paths: Schema.Array(Schema.String),
  drift: Schema.Array(Schema.String),
  forced: Schema.Boolean,
  /** Which client: `cli`, `web`, `rpc`, ... */
  by: Schema.String,
  /** Undoes the last rewind not undone yet. */
  redo: Schema.Boolean
})

/**
 * Later model requests are built from the conversation as it was right after `toSequence`
 * (which honours the rewinds at or before it), followed by what comes after this event. The
 * events in between stay in the log, shown as rewound. A redo is a new one whose
 * `toSequence` is the sequence just before the rewind it undoes.
 */
export const ConversationRewound = defineEvent("conversation.rewound", {
  toSequence: Schema.Int,
  by: Schema.String,
  redo: Schema.Boolean
})

/**
 * The turn's final answer validated against the output schema the prompt asked for
 * (`run --output-schema`): the parsed JSON value, and how many answers it took (1 when the
 * first one validated). Committed just before the turn's `turn.completed`.
 */
export const OutputStructured = defineEvent("output.structured", {
  value: Schema.Unknown,
  attempts: Schema.Int.pipe(Schema.positive())
})

/**
 * A `task` call started a subagent: its own session (`childSessionId`, whose `session.created`
 * names this session and call back), the definition it runs and the delegation prompt as
 * plain text. Recorded after the call's `tool.started`, before its `tool.completed`.
 */
export const SubagentStarted = defineEvent("subagent.started", {
  toolCallId: Schema.String,
  agent: Schema.String,
  childSessionId: Schema.String,
  prompt: Schema.String,
  /** 1 for a child of a top-level turn, 2 for its child, ... */
  depth: Schema.Int
})

/**
 * The subagent's turn ended (also when it was cancelled with its parent): how it stopped, its
 * final answer as plain text (the `task` call's result), and the tokens it and its own
 * subagents used, counted into the parent's turn.
 */
export const SubagentCompleted = defineEvent("subagent.completed", {
  toolCallId: Schema.String,
  agent: Schema.String,
  childSessionId: Schema.String,
  stopReason: TurnStopReason,
  answer: Schema.String,
  usage: Usage,
  message: Schema.optional(Schema.String),
  /**
   * What the child's turn spent, its own subagents' included: counted into the parent's turn
   * (its cost, its budget). Set when the child made at least one model request; absent when
   * the parent's turn was cancelled before the child's ended, and in logs written before it existed.
   */
  spend: Schema.optional(Spend)
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
  "session.mode_changed": SessionModeChanged,
  "session.model_changed": SessionModelChanged,
  "session.renamed": SessionRenamed,
  "session.archived": SessionArchived,
  "session.forked": SessionForked,
  "turn.started": TurnStarted,
  "user.message": UserMessageEvent,
  "model.delta": ModelDelta,
  "model.thinking_delta": ModelThinkingDeltaEvent,
  "model.tool_call_requested": ModelToolCallRequested,
  "model.completed": ModelCompletedEvent,
  "model.failed": ModelFailed,
  "permission.requested": PermissionRequested,
  "permission.resolved": PermissionResolved,
  "plan.proposed": PlanProposed,
  "plan.resolved": PlanResolved,
  "tool.started": ToolStarted,
  "tool.output": ToolOutput,
  "tool.completed": ToolCompleted,
  "inbox.updated": InboxUpdated,
  "context.source": ContextSourceRecorded,
  "context.built": ContextBuilt,
  "context.compacted": ContextCompacted,
  "task.updated": TaskUpdated,
  "memory.candidate_proposed": MemoryCandidateProposed,
  "memory.approved": MemoryApproved,
  "memory.rejected": MemoryRejected,
  "memory.deleted": MemoryDeleted,
  "skill.loaded": SkillLoaded,
  "mcp.notice": McpServerNotice,
  "permission.project_rules": ProjectRulesRecorded,
  "hook.ran": HookRan,
  "checkpoint.recorded": CheckpointRecorded,
  "checkpoint.restored": CheckpointRestored,
  "conversation.rewound": ConversationRewound,
  "output.structured": OutputStructured,
  "subagent.started": SubagentStarted,
  "subagent.completed": SubagentCompleted,
  "turn.completed": TurnCompleted
} as const

export const AgentEvent = Schema.Union(
  SessionCreated,
  SessionModeChanged,
  SessionModelChanged,
  SessionRenamed,
  SessionArchived,
  SessionForked,
  TurnStarted,
  UserMessageEvent,
  ModelDelta,
  ModelThinkingDeltaEvent,
  ModelToolCallRequested,
  ModelCompletedEvent,
  ModelFailed,
  PermissionRequested,
  PermissionResolved,
  PlanProposed,
  PlanResolved,
  ToolStarted,
  ToolOutput,
  ToolCompleted,
  InboxUpdated,
  ContextSourceRecorded,
  ContextBuilt,
  ContextCompacted,
  TaskUpdated,
  MemoryCandidateProposed,
  MemoryApproved,
  MemoryRejected,
  MemoryDeleted,
  SkillLoaded,
  McpServerNotice,
  ProjectRulesRecorded,
  HookRan,
  CheckpointRecorded,
  CheckpointRestored,
  ConversationRewound,
  OutputStructured,
  SubagentStarted,
  SubagentCompleted,
  TurnCompleted
)
export type AgentEvent = typeof AgentEvent.Type
export type EventType = AgentEvent["type"]
export type EventOf<T extends EventType> = Extract<AgentEvent, { readonly type: T }>
export type PayloadOf<T extends EventType> = EventOf<T>["payload"]

export const isEventType = (type: string): type is EventType => Object.hasOwn(eventSchemas, type)
