import type { AgentEvent, EventOf, PayloadOf } from "../domain/events.js"
import type { AssistantPart, ConversationMessage, UserPart } from "../domain/model.js"
import { conversationSpans, inSpans, type Rewind, type Span } from "../domain/rewound.js"
import type { TodoItem } from "../domain/tasks.js"
import { summaryText } from "./summary.js"

/**
 * The conversation as a model sees it, folded incrementally from committed events so a
 * request never re-reads or re-encodes the whole history. Earlier segments are sealed
 * (immutable, shared by every snapshot); only the open one is rebuilt on snapshot. A
 * `conversation.rewound` folds the events it keeps again (see `conversationSpans`).
 */
export interface ConversationBuilder {
  readonly apply: (event: AgentEvent) => void
  readonly snapshot: () => ReadonlyArray<ConversationMessage>
  /** Tool calls of the current assistant message that have no result yet. */
  readonly pendingToolCalls: () => ReadonlyArray<string>
  /** The messages up to and including `sequence`: what a compaction through it summarizes. */
  readonly through: (sequence: number) => ReadonlyArray<ConversationMessage>
  /** The last sequence the summary in effect covers (0: none). */
  readonly compactedThrough: () => number
  /** Whether the event at `sequence` is still part of the conversation (not rewound). */
  readonly holds: (sequence: number) => boolean
  /** The messages after the summary in effect, up to and including `sequence`: what a new compaction through it replaces. */
  readonly since: (sequence: number) => ReadonlyArray<ConversationMessage>
  /**
   * Where steps of the turn that started at `turnStart` ended, in order: the last event of
   * each step's tool results that a model step followed, and last the end of the history as it
   * is (when it ends with tool results). A compaction inside a running turn stops at one of
   * these, so every tool call it keeps has its result.
   */
  readonly stepEnds: (turnStart: number) => ReadonlyArray<number>
  /** The `context.compacted` whose summary is in effect, if any. */
  readonly summary: () => PayloadOf<"context.compacted"> | undefined
  /** The task list in effect (the last `task.updated` the conversation holds) and its sequence. */
  readonly tasks: () => { readonly sequence: number; readonly todos: ReadonlyArray<TodoItem> } | undefined
  /**
   * Workspace files that tool calls changed between the two sequences (inclusive), from the
   * events the conversation holds: edit results and the checkpoints after a step's tools. Sorted.
   */
  readonly changedFiles: (from: number, through: number) => ReadonlyArray<string>
}

export interface ConversationOptions {
  /** Tool results longer than this are cut in the model's view (the log keeps them whole). */
  readonly toolResultChars: number
}

export const defaultConversationOptions: ConversationOptions = { toolResultChars: 30_000 }

type OpenPart =
  | { readonly _tag: "text"; readonly chunks: Array<string> }
  | { readonly _tag: "thinking"; readonly chunks: Array<string>; signature?: string; redacted?: string; encryptedReasoning?: string }
  | { readonly _tag: "sealed"; readonly part: AssistantPart | UserPart }

interface OpenSegment {
  readonly role: "user" | "assistant"
  readonly parts: Array<OpenPart>
  /** The first and last event that wrote into this segment. */
  readonly from: number
  to: number
}

interface SealedSegment {
  readonly message: ConversationMessage
  readonly from: number
  readonly to: number
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
        ...(part.redacted === undefined ? {} : { redacted: part.redacted }),
        ...(part.encryptedReasoning === undefined ? {} : { encryptedReasoning: part.encryptedReasoning })
      }
    case "sealed":
      return part.part
  }
}

const isUserPart = (part: AssistantPart | UserPart): part is UserPart =>
  part._tag === "text" || part._tag === "tool_result"
const isAssistantPart = (part: AssistantPart | UserPart): part is AssistantPart => part._tag !== "tool_result"

const sealSegment = (segment: OpenSegment): SealedSegment => {
  const parts = segment.parts.map(sealPart)
  // Tool results first: providers want them before any text in a message (a hook's note may follow one result and precede another).
  const message: ConversationMessage = segment.role === "user"
    ? { role: "user", content: [...parts.filter((part) => part._tag === "tool_result"), ...parts.filter((part) => part._tag === "text")].filter(isUserPart) }
    : { role: "assistant", content: parts.filter(isAssistantPart) }
  return { message, from: segment.from, to: segment.to }
}

/**
 * Segments break at turn boundaries (so a compaction can drop whole turns); adjacent
 * segments of one role are joined into one message, since providers want roles to alternate.
 */
const joinRoles = (messages: ReadonlyArray<ConversationMessage>): ReadonlyArray<ConversationMessage> => {
  const joined: Array<ConversationMessage> = []
  for (const message of messages) {
    const last = joined[joined.length - 1]
    if (last === undefined || last.role !== message.role) {
      joined.push(message)
      continue
    }
    joined[joined.length - 1] = last.role === "user" && message.role === "user"
      ? { role: "user", content: [...last.content, ...message.content] }
      : last.role === "assistant" && message.role === "assistant"
        ? { role: "assistant", content: [...last.content, ...message.content] }
        : last
  }
  return joined
}

/** Head and tail of a long tool result, with a note saying what the model does not see. */
const forModel = (output: string, limit: number): string => {
  if (output.length <= limit) return output
  const head = output.slice(0, Math.floor(limit * 0.7))
  const tail = output.slice(output.length - Math.floor(limit * 0.3))
  const dropped = output.length - head.length - tail.length
  return `${head}\n\n[... ${dropped} characters of this tool result are left out of the model's view; the session log keeps them whole ...]\n\n${tail}`
}

/** The events a conversation is folded from; the others never change it. */
const foldedTypes: ReadonlySet<AgentEvent["type"]> = new Set<AgentEvent["type"]>([
  "turn.started",
  "user.message",
  "model.delta",
  "model.thinking_delta",
  "model.tool_call_requested",
  "tool.completed",
  "turn.completed",
  "context.compacted",
  "conversation.rewound",
  "task.updated",
  "checkpoint.recorded",
  "hook.ran"
])

export const makeConversation = (options: ConversationOptions = defaultConversationOptions): ConversationBuilder => {
  let sealed: Array<SealedSegment> = []
  let open: OpenSegment | undefined
  let pending: Array<string> = []
  let summaryThrough = 0
  let summary: PayloadOf<"context.compacted"> | undefined
  let tasks: { readonly sequence: number; readonly todos: ReadonlyArray<TodoItem> } | undefined
  /** The open segment's prompts by their sequence: a UserPromptSubmit hook's block takes one out again. */
  const openPrompts = new Map<number, OpenPart>()
  /**
   * Every event the conversation was folded from, so that a rewind can fold the ones it keeps
   * again: a rewind may bring back events an earlier one had left out. Rewinds are rare;
   * keeping these costs an array slot per event, and they go with the session's actor.
   */
  const journal: Array<AgentEvent> = []
  const rewinds: Array<Rewind> = []
  /** What the conversation holds from now on, given its rewinds (none: everything); changes only with a rewind. */
  let held: ReadonlyArray<Span> | undefined

  const closeOpen = () => {
    if (open !== undefined && open.parts.length > 0) sealed.push(sealSegment(open))
    open = undefined
    openPrompts.clear()
  }

  const segment = (role: "user" | "assistant", sequence: number): OpenSegment => {
    if (open !== undefined && open.role === role) {
      open.to = sequence
      return open
    }
    closeOpen()
    open = { role, parts: [], from: sequence, to: sequence }
    return open
  }

  const appendChunk = (tag: "text" | "thinking", text: string, sequence: number): OpenPart => {
    const current = segment("assistant", sequence)
    const last = current.parts[current.parts.length - 1]
    // A signed, redacted or encrypted thinking block is complete: what follows starts a new block.
    const closed = last?._tag === "thinking" &&
      (last.signature !== undefined || last.redacted !== undefined || last.encryptedReasoning !== undefined)
    if (last !== undefined && last._tag === tag && !closed) {
      last.chunks.push(text)
      return last
    }
    const part: OpenPart = tag === "text" ? { _tag: "text", chunks: [text] } : { _tag: "thinking", chunks: [text] }
    current.parts.push(part)
    return part
  }

  const addToolResult = (toolCallId: string, output: string, isError: boolean, sequence: number) => {
    pending = pending.filter((id) => id !== toolCallId)
    segment("user", sequence).parts.push({
      _tag: "sealed",
      part: { _tag: "tool_result", toolCallId, output: forModel(output, options.toolResultChars), isError }
    })
  }

  /** Every tool call answered (a cancelled one as interrupted), the open segment sealed: a turn's end. */
  const closeAll = (sequence: number) => {
    for (const id of [...pending]) addToolResult(id, interruptedToolOutput, true, sequence)
    closeOpen()
  }

  const applyOne = (event: AgentEvent): void => {
    const sequence = event.sequence
    switch (event.type) {
      case "turn.started":
        closeOpen()
        return
      case "user.message": {
        const part: OpenPart = { _tag: "sealed", part: { _tag: "text", text: event.payload.content } }
        const into = segment("user", sequence)
        into.parts.push(part)
        openPrompts.set(sequence, part)
        return
      }
      case "model.delta":
        appendChunk("text", event.payload.text, sequence)
        return
      case "model.thinking_delta": {
        if (event.payload.redacted !== undefined) {
          segment("assistant", sequence).parts.push({ _tag: "thinking", chunks: [event.payload.text], redacted: event.payload.redacted })
          return
        }
        const part = appendChunk("thinking", event.payload.text, sequence)
        if (part._tag === "thinking" && event.payload.signature !== undefined) part.signature = event.payload.signature
        if (part._tag === "thinking" && event.payload.encryptedReasoning !== undefined) part.encryptedReasoning = event.payload.encryptedReasoning
        return
      }
      case "model.tool_call_requested":
        segment("assistant", sequence).parts.push({
          _tag: "sealed",
          part: { _tag: "tool_call", toolCallId: event.payload.toolCallId, name: event.payload.name, input: event.payload.input }
        })
        pending.push(event.payload.toolCallId)
        return
      case "tool.completed":
        addToolResult(event.payload.toolCallId, event.payload.output, event.payload.isError, sequence)
        return
      case "turn.completed":
        // Every tool call must be answered before the next request; a cancelled one is.
        closeAll(sequence)
        return
      case "conversation.rewound":
        // Where a rewind joins two parts, the earlier part may end inside a turn.
        closeAll(sequence)
        return
      case "hook.ran":
        // A blocked prompt never reaches the model: its hooks ran while its segment was open.
        if (event.payload.event === "UserPromptSubmit" && event.payload.decision === "block" && event.payload.promptSequence !== undefined) {
          const prompt = openPrompts.get(event.payload.promptSequence)
          const at = prompt === undefined || open === undefined ? -1 : open.parts.indexOf(prompt)
          if (at >= 0) open?.parts.splice(at, 1)
        }
        // What a hook told the model is part of the conversation, as recorded.
        if (event.payload.context !== undefined) segment("user", sequence).parts.push({ _tag: "sealed", part: { _tag: "text", text: event.payload.context } })
        return
      case "context.compacted": {
        // The summary stands in for every segment up to the boundary; later ones stay verbatim.
        summaryThrough = event.payload.throughSequence
        summary = event.payload
        closeOpen()
        const kept = sealed.filter((s) => s.from > event.payload.throughSequence)
        const segment: SealedSegment = {
          message: { role: "user", content: [{ _tag: "text", text: summaryText(event.payload) }] },
          from: 0,
          to: event.payload.throughSequence
        }
        sealed = [segment, ...kept]
        return
      }
      case "task.updated":
        tasks = { sequence, todos: event.payload.todos }
        return
      default:
        return
    }
  }

  /** Folds again, from nothing, the journal's events the conversation holds after this rewind. */
  const rewind = (event: EventOf<"conversation.rewound">) => {
    rewinds.push({ sequence: event.sequence, toSequence: event.payload.toSequence })
    held = conversationSpans(rewinds, Number.MAX_SAFE_INTEGER)
    const spans = conversationSpans(rewinds, event.sequence)
    sealed = []
    open = undefined
    pending = []
    summaryThrough = 0
    summary = undefined
    tasks = undefined
    let at = 0
    for (const kept of journal) {
      while (at < spans.length && (spans[at]?.to ?? 0) < kept.sequence) at++
      const span = spans[at]
      if (span === undefined) break
      if (kept.sequence >= span.from) applyOne(kept)
    }
  }

  const apply = (event: AgentEvent): void => {
    if (!foldedTypes.has(event.type)) return
    journal.push(event)
    if (event.type === "conversation.rewound") rewind(event)
    else applyOne(event)
  }

  const messagesOf = (segments: ReadonlyArray<SealedSegment>) => joinRoles(segments.map((s) => s.message))

  const snapshot = (): ReadonlyArray<ConversationMessage> => {
    const segments = sealed.slice()
    if (open !== undefined && open.parts.length > 0) segments.push(sealSegment(open))
    return messagesOf(segments)
  }

  const holds = (sequence: number) => held === undefined || inSpans(held, sequence)

  /** The sealed segments and the open one as it would seal now. */
  const withOpen = (): ReadonlyArray<SealedSegment> => (open !== undefined && open.parts.length > 0 ? [...sealed, sealSegment(open)] : sealed)

  const stepEnds = (turnStart: number): ReadonlyArray<number> => {
    const segments = withOpen().filter((s) => s.from > Math.max(turnStart, summaryThrough))
    const ends: Array<number> = []
    for (const [i, segment] of segments.entries()) {
      if (segment.message.role !== "user" || !segment.message.content.some((part) => part._tag === "tool_result")) continue
      const next = segments[i + 1]
      if (next === undefined ? pending.length === 0 : next.message.role === "assistant") ends.push(segment.to)
    }
    return ends
  }

  const changedFiles = (from: number, through: number): ReadonlyArray<string> => {
    const paths = new Set<string>()
    for (const event of journal) {
      if (event.sequence < from || event.sequence > through || !holds(event.sequence)) continue
      if (event.type === "tool.completed" && !event.payload.isError && event.payload.data?._tag === "edit") paths.add(event.payload.data.path)
      if (event.type === "checkpoint.recorded" && event.payload.trigger === "after_tools") for (const path of event.payload.changed) paths.add(path)
    }
    return [...paths].sort()
  }

  return {
    apply,
    snapshot,
    pendingToolCalls: () => pending.slice(),
    through: (sequence) => messagesOf(withOpen().filter((s) => s.to <= sequence)),
    since: (sequence) => messagesOf(withOpen().filter((s) => s.from > summaryThrough && s.to <= sequence)),
    stepEnds,
    compactedThrough: () => summaryThrough,
    summary: () => summary,
    tasks: () => tasks,
    changedFiles,
    holds
  }
}
