import type { ConversationMessage, ModelRequest, ToolDefinition } from "./model.js"

/**
 * Token estimates that err high, shared by the engine's context budget and the adapters'
 * context-overflow preflight. The rule: every character the model reads (system prompt,
 * text, thinking and redacted thinking payloads, tool names, tool call inputs as JSON, tool
 * results, tool definitions as JSON) counts `1 / charsPerToken` tokens; on top, a request
 * costs 32 tokens, each message 8, each content part 4 and each tool definition 16. English
 * prose runs at about 4 characters per token and code at about 3 on classic tokenizers, so
 * 3 is high for prose and about right for dense code.
 */
export const CHARS_PER_TOKEN = 3
export const REQUEST_OVERHEAD = 32
export const MESSAGE_OVERHEAD = 8
export const PART_OVERHEAD = 4
export const TOOL_OVERHEAD = 16

const jsonLength = (value: unknown): number => JSON.stringify(value ?? null).length

interface MessageSize {
  readonly chars: number
  readonly overhead: number
}

/**
 * Messages already measured. A session's messages are immutable and shared by every request
 * built from it, so each is measured once, not once per step (the engine's budget and the
 * adapters' preflight would otherwise re-walk the whole history at every request).
 */
const measured = new WeakMap<ConversationMessage, MessageSize>()

/** Characters a message contributes, and its framing overhead in tokens. */
export const messageSize = (message: ConversationMessage): MessageSize => {
  const known = measured.get(message)
  if (known !== undefined) return known
  const size = measureMessage(message)
  measured.set(message, size)
  return size
}

const measureMessage = (message: ConversationMessage): MessageSize => {
  let chars = 0
  let overhead = MESSAGE_OVERHEAD
  for (const part of message.content) {
    overhead += PART_OVERHEAD
    switch (part._tag) {
      case "text":
        chars += part.text.length
        break
      case "thinking":
        chars += part.text.length + (part.redacted?.length ?? 0)
        break
      case "tool_call":
        chars += part.name.length + part.toolCallId.length + jsonLength(part.input)
        break
      case "tool_result":
        chars += part.toolCallId.length + part.output.length
        break
    }
  }
  return { chars, overhead }
}

/** Tool definitions already measured: a router hands out the same definitions at every step. */
const measuredTools = new WeakMap<ToolDefinition, number>()

export const toolChars = (tool: ToolDefinition): number => {
  const known = measuredTools.get(tool)
  if (known !== undefined) return known
  const chars = tool.name.length + tool.description.length + jsonLength(tool.inputSchema)
  measuredTools.set(tool, chars)
  return chars
}

export const textTokens = (text: string, charsPerToken: number = CHARS_PER_TOKEN): number =>
  Math.ceil(text.length / charsPerToken)

export const messageTokens = (message: ConversationMessage, charsPerToken: number = CHARS_PER_TOKEN): number => {
  const { chars, overhead } = messageSize(message)
  return Math.ceil(chars / charsPerToken) + overhead
}

export const toolsTokens = (tools: ReadonlyArray<ToolDefinition>, charsPerToken: number = CHARS_PER_TOKEN): number =>
  tools.reduce((sum, tool) => sum + TOOL_OVERHEAD + Math.ceil(toolChars(tool) / charsPerToken), 0)

/** The whole prompt of a request, rounded up once over all its characters. */
export const estimatePromptTokens = (request: ModelRequest, charsPerToken: number = CHARS_PER_TOKEN): number => {
  let chars = request.system.length
  let overhead = REQUEST_OVERHEAD
  for (const message of request.messages) {
    const size = messageSize(message)
    chars += size.chars
    overhead += size.overhead
  }
  for (const tool of request.tools) {
    overhead += TOOL_OVERHEAD
    chars += toolChars(tool)
  }
  return Math.ceil(chars / charsPerToken) + overhead
}
