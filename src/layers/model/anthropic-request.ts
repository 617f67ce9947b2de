import type {
  ContentBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  ThinkingConfigParam,
  Tool
} from "@anthropic-ai/sdk/resources/messages"
import type { AssistantMessage, ConversationMessage, ModelRequest, ToolDefinition, UserMessage } from "../../domain/model.js"
import { makeBodyEncoder } from "./body-encoder.js"
import { toolParameters } from "./tool-schema.js"

export interface AnthropicRequestOptions {
  readonly model: string
  readonly maxTokens: number
  readonly thinking?: ThinkingConfigParam
  readonly promptCaching: boolean
}

/**
 * A user message's blocks: tool results first (the API wants them at the head of the user
 * message that follows the tool_use blocks), then the text; empty text is dropped.
 */
const userBlocks = (message: UserMessage): Array<ContentBlockParam> => {
  const results: Array<ContentBlockParam> = []
  const texts: Array<ContentBlockParam> = []
  for (const part of message.content) {
    if (part._tag === "tool_result") {
      results.push({
        type: "tool_result",
        tool_use_id: part.toolCallId,
        ...(part.output === "" ? {} : { content: part.output }),
        ...(part.isError ? { is_error: true } : {})
      })
    } else if (part.text.trim() !== "") {
      texts.push({ type: "text", text: part.text })
    }
  }
  return [...results, ...texts]
}

/**
 * An assistant message's blocks in the order they were produced. Thinking goes back
 * verbatim with its signature (a redacted block as `redacted_thinking`); thinking without
 * a signature (from another provider, or cut off) cannot be verified by the API and is
 * dropped, as is empty text.
 */
const assistantBlocks = (message: AssistantMessage): Array<ContentBlockParam> => {
  const blocks: Array<ContentBlockParam> = []
  for (const part of message.content) {
    switch (part._tag) {
      case "thinking":
        if (part.signature !== undefined && part.signature !== "") {
          blocks.push({ type: "thinking", thinking: part.text, signature: part.signature })
        }
        if (part.redacted !== undefined && part.redacted !== "") {
          blocks.push({ type: "redacted_thinking", data: part.redacted })
        }
        break
      case "text":
        if (part.text.trim() !== "") blocks.push({ type: "text", text: part.text })
        break
      case "tool_call":
        blocks.push({ type: "tool_use", id: part.toolCallId, name: part.name, input: part.input })
        break
    }
  }
  return blocks
}

/** A message as the API takes it; undefined when nothing in it can be sent (it would be rejected). */
const toMessageParam = (message: ConversationMessage): MessageParam | undefined => {
  const content = message.role === "user" ? userBlocks(message) : assistantBlocks(message)
  return content.length > 0 ? { role: message.role, content } : undefined
}

const toToolParam = (tool: ToolDefinition): Tool => ({ name: tool.name, description: tool.description, input_schema: toolParameters(tool) })

export const toAnthropicMessages = (request: ModelRequest): Array<MessageParam> =>
  request.messages.flatMap((message) => toMessageParam(message) ?? [])

export const toAnthropicTools = (request: ModelRequest): Array<Tool> => request.tools.map(toToolParam)

/**
 * The request as the SDK's params object: the readable statement of what is sent, which the
 * adapter's body encoder is tested against (it sends the same, encoded incrementally).
 */
export const toAnthropicParams = (request: ModelRequest, options: AnthropicRequestOptions): MessageCreateParamsStreaming => {
  const tools = toAnthropicTools(request)
  return {
    model: options.model,
    max_tokens: options.maxTokens,
    stream: true,
    messages: toAnthropicMessages(request),
    ...(request.system.trim() === "" ? {} : { system: request.system }),
    ...(tools.length === 0 ? {} : { tools }),
    ...(options.thinking === undefined ? {} : { thinking: options.thinking }),
    ...(options.promptCaching ? { cache_control: { type: "ephemeral" } } : {})
  }
}

/**
 * The request body as JSON, the same as `JSON.stringify(toAnthropicParams(...))` apart from
 * key order, with each message and tool encoded once (see `makeBodyEncoder`). One per gateway.
 */
export const makeAnthropicBodyEncoder = () => {
  const encoder = makeBodyEncoder({ wireMessages: (message) => {
      const param = toMessageParam(message)
      return param === undefined ? [] : [param]
    }, wireTool: toToolParam })
  return (request: ModelRequest, options: AnthropicRequestOptions): string => {
    const fields = [
      `"model":${JSON.stringify(options.model)}`,
      `"max_tokens":${JSON.stringify(options.maxTokens)}`,
      `"stream":true`,
      `"messages":[${encoder.messages(request)}]`
    ]
    if (request.system.trim() !== "") fields.push(`"system":${JSON.stringify(request.system)}`)
    if (request.tools.length > 0) fields.push(`"tools":${encoder.tools(request)}`)
    if (options.thinking !== undefined) fields.push(`"thinking":${JSON.stringify(options.thinking)}`)
    if (options.promptCaching) fields.push(`"cache_control":{"type":"ephemeral"}`)
    return `{${fields.join(",")}}`
  }
}
