import type { AssistantMessage, ConversationMessage, ModelRequest, ToolDefinition, UserMessage } from "../../domain/model.js"
import { makeBodyEncoder } from "./body-encoder.js"
import { toolParameters } from "./tool-schema.js"

/**
 * The Responses API input items this adapter sends (OpenAI API reference, "Create a model
 * response", `input`): messages, function calls and their outputs, and reasoning items.
 */
export type ResponsesInputItem =
  | { readonly role: "user" | "assistant"; readonly content: string }
  | { readonly type: "function_call"; readonly call_id: string; readonly name: string; readonly arguments: string }
  | { readonly type: "function_call_output"; readonly call_id: string; readonly output: string }
  | {
    readonly type: "reasoning"
    readonly summary: ReadonlyArray<{ readonly type: "summary_text"; readonly text: string }>
    readonly encrypted_content: string
  }

export interface ResponsesRequestOptions {
  readonly model: string
  readonly maxOutputTokens?: number
  /** A reasoning model: ask for reasoning summaries and encrypted reasoning items (other models reject both). */
  readonly reasoning: boolean
}

/**
 * Tool results first (each must follow the call it answers), then the user's text. The API
 * has no error flag for a function call's output: a failed one is prefixed with "Error: ".
 */
const userItems = (message: UserMessage): Array<ResponsesInputItem> => {
  const out: Array<ResponsesInputItem> = []
  const texts: Array<string> = []
  for (const part of message.content) {
    if (part._tag === "tool_result") {
      out.push({ type: "function_call_output", call_id: part.toolCallId, output: part.isError ? `Error: ${part.output}` : part.output })
    } else if (part.text.trim() !== "") {
      texts.push(part.text)
    }
  }
  if (texts.length > 0) out.push({ role: "user", content: texts.join("\n\n") })
  return out
}

/**
 * The assistant's items in the order they were produced: a reasoning item must come right
 * before the item that followed it. Only reasoning with its encrypted content goes back
 * (requests are `store: false`, so OpenAI cannot look an item up by id, and the id is left
 * out); other thinking (another provider's, or cut off) cannot be verified and is dropped.
 */
const assistantItems = (message: AssistantMessage): Array<ResponsesInputItem> => {
  const out: Array<ResponsesInputItem> = []
  let text: Array<string> = []
  const flushText = () => {
    if (text.length > 0) out.push({ role: "assistant", content: text.join("") })
    text = []
  }
  for (const part of message.content) {
    switch (part._tag) {
      case "text":
        if (part.text.trim() !== "") text.push(part.text)
        break
      case "thinking":
        if (part.encryptedReasoning !== undefined && part.encryptedReasoning !== "") {
          flushText()
          out.push({
            type: "reasoning",
            summary: part.text === "" ? [] : [{ type: "summary_text", text: part.text }],
            encrypted_content: part.encryptedReasoning
          })
        }
        break
      case "tool_call":
        flushText()
        out.push({ type: "function_call", call_id: part.toolCallId, name: part.name, arguments: JSON.stringify(part.input ?? {}) })
        break
    }
  }
  flushText()
  return out
}

const inputItems = (message: ConversationMessage): Array<ResponsesInputItem> =>
  message.role === "user" ? userItems(message) : assistantItems(message)

/** `strict: false`: the Responses API defaults to strict schemas, which our tools' schemas need not satisfy. */
const responsesTool = (tool: ToolDefinition) => ({
  type: "function" as const,
  name: tool.name,
  description: tool.description,
  parameters: toolParameters(tool),
  strict: false
})

const reasoningFields = { reasoning: { summary: "auto" }, include: ["reasoning.encrypted_content"] } as const

/**
 * The streaming request body as an object: the readable statement of what is sent, which the
 * body encoder is tested against. `store: false` keeps nothing at OpenAI between steps; the
 * conversation (with the encrypted reasoning items) is sent whole every time.
 */
export const toResponsesRequest = (request: ModelRequest, options: ResponsesRequestOptions) => {
  const tools = request.tools.map(responsesTool)
  return {
    model: options.model,
    ...(request.system.trim() === "" ? {} : { instructions: request.system }),
    input: request.messages.flatMap(inputItems),
    stream: true,
    store: false,
    ...(tools.length === 0 ? {} : { tools }),
    ...(options.reasoning ? reasoningFields : {}),
    ...(options.maxOutputTokens === undefined ? {} : { max_output_tokens: options.maxOutputTokens })
  }
}

/**
 * The streaming request body as JSON, equal to `JSON.stringify(toResponsesRequest(...))`, with
 * each message and tool encoded once (see `makeBodyEncoder`). One per gateway.
 */
export const makeResponsesBodyEncoder = () => {
  const encoder = makeBodyEncoder({ wireMessages: inputItems, wireTool: responsesTool })
  return (request: ModelRequest, options: ResponsesRequestOptions): string => {
    const fields = [`"model":${JSON.stringify(options.model)}`]
    if (request.system.trim() !== "") fields.push(`"instructions":${JSON.stringify(request.system)}`)
    fields.push(`"input":[${encoder.messages(request)}]`, `"stream":true`, `"store":false`)
    if (request.tools.length > 0) fields.push(`"tools":${encoder.tools(request)}`)
    if (options.reasoning) {
      fields.push(`"reasoning":${JSON.stringify(reasoningFields.reasoning)}`, `"include":${JSON.stringify(reasoningFields.include)}`)
    }
    if (options.maxOutputTokens !== undefined) fields.push(`"max_output_tokens":${JSON.stringify(options.maxOutputTokens)}`)
    return `{${fields.join(",")}}`
  }
}
