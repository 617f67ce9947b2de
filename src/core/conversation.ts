import type { AgentEvent } from "../domain/events.js"
import type { AssistantPart, ConversationMessage, UserPart } from "../domain/model.js"

/**
 * The conversation as a model sees it, folded incrementally from committed events so a
 * request never re-reads or re-encodes the whole history. Earlier messages are sealed
 * (immutable, shared by every snapshot); only the open last message is rebuilt on snapshot.
 */
export interface ConversationBuilder {
  readonly apply: (event: AgentEvent) => void
  readonly snapshot: () => ReadonlyArray<ConversationMessage>
  /** Tool calls of the current assistant message that have no result yet. */
  readonly pendingToolCalls: () => ReadonlyArray<string>
}

type OpenPart =
  | { readonly _tag: "text"; readonly chunks: Array<string> }
  | { readonly _tag: "thinking"; readonly chunks: Array<string>; signature?: string; redacted?: string }
  | { readonly _tag: "sealed"; readonly part: AssistantPart | UserPart }

interface OpenMessage {
  readonly role: "user" | "assistant"
  readonly parts: Array<OpenPart>
}

export const interruptedToolOutput = "The turn ended before this tool call completed (cancelled or interrupted)."

const sealPart = (part: OpenPart): AssistantPart | UserPart => {
  switch (part._tag) {
    case "text":
      return { _tag: "text", text: part.chunks.join("") }
    case "thinking":
      return {
        _tag: "thinking",
        text: part.chunks.join(""),
        ...(part.signature === undefined ? {} : { signature: part.signature }),
        ...(part.redacted === undefined ? {} : { redacted: part.redacted })
      }
    case "sealed":
      return part.part
  }
}

const isUserPart = (part: AssistantPart | UserPart): part is UserPart =>
  part._tag === "text" || part._tag === "tool_result"
const isAssistantPart = (part: AssistantPart | UserPart): part is AssistantPart => part._tag !== "tool_result"

const sealMessage = (message: OpenMessage): ConversationMessage => {
  const parts = message.parts.map(sealPart)
  return message.role === "user"
    ? { role: "user", content: parts.filter(isUserPart) }
    : { role: "assistant", content: parts.filter(isAssistantPart) }
}

export const makeConversation = (): ConversationBuilder => {
  const sealed: Array<ConversationMessage> = []
  let open: OpenMessage | undefined
  let pending: Array<string> = []

  const openMessage = (role: "user" | "assistant"): OpenMessage => {
    if (open !== undefined && open.role === role) return open
    if (open !== undefined) sealed.push(sealMessage(open))
    open = { role, parts: [] }
    return open
  }

  const appendChunk = (tag: "text" | "thinking", text: string): OpenPart => {
    const message = openMessage("assistant")
    const last = message.parts[message.parts.length - 1]
    // A signed or redacted thinking block is complete: what follows starts a new block.
    const closed = last?._tag === "thinking" && (last.signature !== undefined || last.redacted !== undefined)
    if (last !== undefined && last._tag === tag && !closed) {
      last.chunks.push(text)
      return last
    }
    const part: OpenPart = tag === "text" ? { _tag: "text", chunks: [text] } : { _tag: "thinking", chunks: [text] }
    message.parts.push(part)
    return part
  }

  const addToolResult = (toolCallId: string, output: string, isError: boolean) => {
    pending = pending.filter((id) => id !== toolCallId)
    openMessage("user").parts.push({ _tag: "sealed", part: { _tag: "tool_result", toolCallId, output, isError } })
  }

  const apply = (event: AgentEvent): void => {
    switch (event.type) {
      case "user.message":
        openMessage("user").parts.push({ _tag: "sealed", part: { _tag: "text", text: event.payload.content } })
        return
      case "model.delta":
        appendChunk("text", event.payload.text)
        return
      case "model.thinking_delta": {
        if (event.payload.redacted !== undefined) {
          openMessage("assistant").parts.push({ _tag: "thinking", chunks: [event.payload.text], redacted: event.payload.redacted })
          return
        }
        const part = appendChunk("thinking", event.payload.text)
        if (part._tag === "thinking" && event.payload.signature !== undefined) part.signature = event.payload.signature
        return
      }
      case "model.tool_call_requested":
        openMessage("assistant").parts.push({
          _tag: "sealed",
          part: { _tag: "tool_call", toolCallId: event.payload.toolCallId, name: event.payload.name, input: event.payload.input }
        })
        pending.push(event.payload.toolCallId)
        return
      case "tool.completed":
        addToolResult(event.payload.toolCallId, event.payload.output, event.payload.isError)
        return
      case "turn.completed":
        // Every tool call must be answered before the next request; a cancelled one is.
        for (const id of [...pending]) addToolResult(id, interruptedToolOutput, true)
        return
      default:
        return
    }
  }

  const snapshot = (): ReadonlyArray<ConversationMessage> => {
    const messages = sealed.slice()
    if (open !== undefined && open.parts.length > 0) messages.push(sealMessage(open))
    return messages
  }

  return { apply, snapshot, pendingToolCalls: () => pending.slice() }
}
