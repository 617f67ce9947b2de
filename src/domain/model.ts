import * as Schema from "effect/Schema"

/** Why a model step stopped, in the domain's own words (providers map theirs onto these). */
export const ModelStopReason = Schema.Literal(
  "final", // the model finished its answer (Anthropic end_turn, OpenAI stop)
  "tool_calls", // the model wants tool results before it continues
  "max_tokens", // the output token limit cut the answer
  "stop_sequence", // a configured stop sequence was produced
  "pause", // the provider paused a long turn; sending the conversation back resumes it
  "refusal" // the model declined to answer
)
export type ModelStopReason = typeof ModelStopReason.Type

export const Usage = Schema.Struct({
  inputTokens: Schema.Finite,
  outputTokens: Schema.Finite,
  cacheReadTokens: Schema.optional(Schema.Finite),
  cacheWriteTokens: Schema.optional(Schema.Finite),
  /** Of `outputTokens`, those the model spent reasoning (already counted there; OpenAI reports them). */
  reasoningTokens: Schema.optional(Schema.Finite)
})
export type Usage = typeof Usage.Type

export const emptyUsage: Usage = { inputTokens: 0, outputTokens: 0 }

/** Error codes a model step can fail with; `turn.completed.errorCode` carries them. */
export const ModelErrorCode = Schema.Literal(
  "auth", // missing, rejected or unauthorized key (401/403)
  "rate_limited", // 429 after the retry budget
  "overloaded", // 529 / overloaded_error after the retry budget
  "context_overflow", // the prompt does not fit the model's window
  "network", // connection failures after the retry budget
  "invalid_response", // the provider sent something we cannot parse (e.g. bad tool JSON)
  "bad_request", // a 4xx the provider rejected for another reason
  "provider_error", // a 5xx or an error event we do not classify further
  "scripted" // a failure planted by the scripted model
)
export type ModelErrorCode = typeof ModelErrorCode.Type

/** What a model can do; declared by each adapter. */
export const ModelCapabilities = Schema.Struct({
  streaming: Schema.Boolean,
  toolCalls: Schema.Boolean,
  thinking: Schema.Boolean,
  images: Schema.Boolean
})
export type ModelCapabilities = typeof ModelCapabilities.Type

export const ModelInfo = Schema.Struct({
  /** `scripted`, `anthropic/<id>`, `openai/<id>`: what `--model` selected. */
  id: Schema.String,
  provider: Schema.String,
  contextWindow: Schema.Finite,
  maxOutputTokens: Schema.Finite,
  capabilities: ModelCapabilities,
  /** The wire API the adapter speaks, where a provider has several (`responses`, `chat-completions`). */
  api: Schema.optional(Schema.String)
})
export type ModelInfo = typeof ModelInfo.Type

/** A tool as the model sees it: the JSON Schema is derived from the tool's effect Schema. */
export const ToolDefinition = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  inputSchema: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
export type ToolDefinition = typeof ToolDefinition.Type

// ---- the conversation, rebuilt from the event log for every model request ----

export const TextPart = Schema.TaggedStruct("text", { text: Schema.String })
export const ThinkingPart = Schema.TaggedStruct("thinking", {
  text: Schema.String,
  /** Provider signature that lets the block be sent back verbatim on the next request. */
  signature: Schema.optional(Schema.String),
  /** Opaque payload of a redacted thinking block. */
  redacted: Schema.optional(Schema.String),
  /** An OpenAI Responses reasoning item's `encrypted_content`: only the Responses adapter sends it back. */
  encryptedReasoning: Schema.optional(Schema.String)
})
export const ToolCallPart = Schema.TaggedStruct("tool_call", {
  toolCallId: Schema.String,
  name: Schema.String,
  input: Schema.Unknown
})
export const ToolResultPart = Schema.TaggedStruct("tool_result", {
  toolCallId: Schema.String,
  output: Schema.String,
  isError: Schema.Boolean
})

export const UserMessage = Schema.Struct({
  role: Schema.Literal("user"),
  content: Schema.Array(Schema.Union(TextPart, ToolResultPart))
})
export type UserMessage = typeof UserMessage.Type
export const AssistantMessage = Schema.Struct({
  role: Schema.Literal("assistant"),
  content: Schema.Array(Schema.Union(TextPart, ThinkingPart, ToolCallPart))
})
export type AssistantMessage = typeof AssistantMessage.Type
export const ConversationMessage = Schema.Union(UserMessage, AssistantMessage)
export type ConversationMessage = typeof ConversationMessage.Type
export type UserPart = UserMessage["content"][number]
export type AssistantPart = AssistantMessage["content"][number]

export const ModelRequest = Schema.Struct({
  /** The session asking; adapters may use it as opaque metadata, the scripted model keys its cursor on it. */
  sessionId: Schema.String,
  /** `compaction`: the engine asks for a summary of older turns, not for the next step of a turn. */
  purpose: Schema.optional(Schema.Literal("turn", "compaction")),
  /** Set when a subagent asks: the name of the agent definition it runs (the scripted model plays that agent's responses). */
  agent: Schema.optional(Schema.String),
  system: Schema.String,
  messages: Schema.Array(ConversationMessage),
  tools: Schema.Array(ToolDefinition)
})
export type ModelRequest = typeof ModelRequest.Type

// ---- normalized stream events: the only thing the core ever sees of a provider ----

export const ModelTextDelta = Schema.TaggedStruct("TextDelta", { text: Schema.String })
export const ModelThinkingDelta = Schema.TaggedStruct("ThinkingDelta", {
  text: Schema.String,
  signature: Schema.optional(Schema.String),
  redacted: Schema.optional(Schema.String),
  /** Ends an OpenAI Responses reasoning item: its encrypted content, to be sent back on the next request. */
  encryptedReasoning: Schema.optional(Schema.String)
})
export const ModelToolCall = Schema.TaggedStruct("ToolCall", {
  toolCallId: Schema.String,
  name: Schema.String,
  /** Complete, parsed JSON input: adapters assemble streamed fragments first. */
  input: Schema.Unknown
})
export const ModelCompleted = Schema.TaggedStruct("Completed", {
  stopReason: ModelStopReason,
  usage: Usage,
  /** The request's cost in USD when the provider reports it (or a priced gateway computed it). */
  costUsd: Schema.optional(Schema.Finite)
})
export const ModelStreamEvent = Schema.Union(ModelTextDelta, ModelThinkingDelta, ModelToolCall, ModelCompleted)
export type ModelStreamEvent = typeof ModelStreamEvent.Type
