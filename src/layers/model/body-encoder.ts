import type { ConversationMessage, ModelRequest, ToolDefinition } from "../../domain/model.js"

/**
 * The JSON of a request's messages and tools, each conversation message and tool definition
 * encoded once. A session's messages are immutable and shared from one request to the next
 * (see `makeConversation`), so a request encodes what is new instead of converting and
 * encoding the whole history again. Weak caches: they hold nothing the conversation dropped.
 * `wireMessages` gives the provider's messages for one conversation message (none, one, or
 * several); `wireTool` a tool definition as the provider takes it.
 */
export const makeBodyEncoder = (wire: {
  readonly wireMessages: (message: ConversationMessage) => ReadonlyArray<unknown>
  readonly wireTool: (tool: ToolDefinition) => unknown
}) => {
  // "" for a message that sends nothing.
  const messages = new WeakMap<ConversationMessage, string>()
  const tools = new WeakMap<ToolDefinition, string>()

  const messageJson = (message: ConversationMessage): string => {
    let json = messages.get(message)
    if (json === undefined) {
      json = wire.wireMessages(message).map((one) => JSON.stringify(one)).join(",")
      messages.set(message, json)
    }
    return json
  }

  const toolJson = (tool: ToolDefinition): string => {
    let json = tools.get(tool)
    if (json === undefined) {
      json = JSON.stringify(wire.wireTool(tool))
      tools.set(tool, json)
    }
    return json
  }

  return {
    /** The messages' JSON, comma-separated, without brackets (a caller may put more around them). */
    messages: (request: ModelRequest): string => {
      const encoded: Array<string> = []
      for (const message of request.messages) {
        const json = messageJson(message)
        if (json !== "") encoded.push(json)
      }
      return encoded.join(",")
    },
    /** The tool definitions as a JSON array. */
    tools: (request: ModelRequest): string => `[${request.tools.map(toolJson).join(",")}]`
  }
}
