import type { AssistantMessage, ConversationMessage, ModelRequest, ToolDefinition, UserMessage } from "../../domain/model.js"
import { makeBodyEncoder } from "./body-encoder.js"
import { toolParameters } from "./tool-schema.js"

/** The Chat Completions message shapes this adapter sends. */
export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | {
    readonly role: "assistant"
    readonly content: string | null
    readonly tool_calls?: ReadonlyArray<{
      readonly id: string
      readonly type: "function"
      readonly function: { readonly name: string; readonly arguments: string }
    }>
  }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

export interface ChatRequestOptions {
  readonly model: string
  readonly maxTokens?: number
}

/**
 * Tool results become `tool` messages, which must directly follow the assistant message
 * that called them, so they come before the user's text. Chat Completions has no error
 * flag for a tool result: a failed one is prefixed with "Error: ".
 */
const userMessages = (message: UserMessage): Array<ChatMessage> => {
  const out: Array<ChatMessage> = []
  const texts: Array<string> = []
  for (const part of message.content) {
    if (part._tag === "tool_result") {
      out.push({ role: "tool", tool_call_id: part.toolCallId, content: part.isError ? `Error: ${part.output}` : part.output })
    } else if (part.text.trim() !== "") {
      texts.push(part.text)
    }
  }
  if (texts.length > 0) out.push({ role: "user", content: texts.join("\n\n") })
  return out
}

/**
 * Reasoning is not sent back: the API has no field for it, and servers that stream
 * `reasoning_content` reject it in input (DeepSeek) or ignore it.
 */
const assistantMessages = (message: AssistantMessage): Array<ChatMessage> => {
  const texts: Array<string> = []
  const calls: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }> = []
  for (const part of message.content) {
    if (part._tag === "text" && part.text.trim() !== "") texts.push(part.text)
    if (part._tag === "tool_call") {
      calls.push({ id: part.toolCallId, type: "function", function: { name: part.name, arguments: JSON.stringify(part.input ?? {}) } })
    }
  }
  if (texts.length === 0 && calls.length === 0) return []
  return [{ role: "assistant", content: texts.length === 0 ? null : texts.join(""), ...(calls.length === 0 ? {} : { tool_calls: calls }) }]
}

const chatMessages = (message: ConversationMessage): Array<ChatMessage> =>
  message.role === "user" ? userMessages(message) : assistantMessages(message)

const chatTool = (tool: ToolDefinition) => ({
  type: "function" as const,
  function: { name: tool.name, description: tool.description, parameters: toolParameters(tool) }
})

export const toChatMessages = (request: ModelRequest): Array<ChatMessage> => [
  ...(request.system.trim() === "" ? [] : [{ role: "system" as const, content: request.system }]),
  ...request.messages.flatMap(chatMessages)
]

/**
 * The streaming request body as an object (usage is asked for in the final chunk): the readable
 * statement of what is sent, which the adapter's body encoder is tested against.
 */
export const toChatRequest = (request: ModelRequest, options: ChatRequestOptions) => {
  const tools = request.tools.map(chatTool)
  return {
    model: options.model,
    messages: toChatMessages(request),
    stream: true,
    stream_options: { include_usage: true },
    ...(tools.length === 0 ? {} : { tools }),
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens })
  }
}

/**
 * The streaming request body as JSON, the same as `JSON.stringify(toChatRequest(...))` apart
 * from key order, with each message and tool encoded once (see `makeBodyEncoder`). One per gateway.
 */
export const makeChatBodyEncoder = () => {
  const encoder = makeBodyEncoder({ wireMessages: chatMessages, wireTool: chatTool })
  return (request: ModelRequest, options: ChatRequestOptions): string => {
    const history = encoder.messages(request)
    const system = request.system.trim() === "" ? "" : JSON.stringify({ role: "system", content: request.system })
    const fields = [
      `"model":${JSON.stringify(options.model)}`,
      `"messages":[${[system, history].filter((part) => part !== "").join(",")}]`,
      `"stream":true`,
      `"stream_options":{"include_usage":true}`
    ]
    if (request.tools.length > 0) fields.push(`"tools":${encoder.tools(request)}`)
    if (options.maxTokens !== undefined) fields.push(`"max_tokens":${JSON.stringify(options.maxTokens)}`)
    return `{${fields.join(",")}}`
  }
}
