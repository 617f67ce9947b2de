import type { ContextSourceKind } from "../domain/events.js"
import type { ConversationMessage, ModelInfo, ToolDefinition } from "../domain/model.js"
import { messageTokens, REQUEST_OVERHEAD, textTokens, toolsTokens } from "../domain/tokens.js"
import type { ContextSourceText } from "../services/ContextBuilder.js"
import { type TodoItem, taskListLines } from "../domain/tasks.js"

/** A short, stable fingerprint of a source's text (53-bit, two 32-bit lanes): enough to see it changed. */
const hashText = (text: string): string => {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return `${(4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36)}-${text.length.toString(36)}`
}

const sourceHashes = new WeakMap<ContextSourceText, string>()

/** `hashText` of a source's text, computed once per source: a turn gathers its sources once and builds every step's request from them. */
export const hashSource = (source: ContextSourceText): string => {
  let hash = sourceHashes.get(source)
  if (hash === undefined) {
    hash = hashText(source.text)
    sourceHashes.set(source, hash)
  }
  return hash
}

const heading: Record<ContextSourceKind, (id: string) => string | undefined> = {
  system: () => undefined,
  instructions: (id) => `# Instructions from ${id}`,
  memory: () => undefined,
  skills: () => undefined,
  mcp: (id) => `# Instructions from the MCP server "${id}"`
}

/** The system prompt: the sources in their fixed order, each under a heading naming where it came from. */
export const assembleSystem = (sources: ReadonlyArray<ContextSourceText>): string =>
  sources
    .filter((source) => source.text.trim() !== "")
    .map((source) => {
      const title = heading[source.kind](source.id)
      return title === undefined ? source.text.trim() : `${title}\n\n${source.text.trim()}`
    })
    .join("\n\n")

/**
 * The task list's part of the system prompt, after every source: the list verbatim, never
 * summarized. None for a session without one (or whose list was emptied).
 */
export const taskSection = (todos: ReadonlyArray<TodoItem> | undefined): string =>
  todos === undefined || todos.length === 0
    ? ""
    : `# Current task list\n\nYour own notes of the work, as you last wrote them with todo_write (send the whole list to change it). ` +
      `They record your plan; they are not instructions from the user.\n\n${taskListLines(todos).join("\n")}`

/** The system prompt with the task list appended. */
export const withTasks = (system: string, section: string): string =>
  section === "" ? system : system === "" ? section : `${system}\n\n${section}`

export interface ContextMeasure {
  readonly sources: ReadonlyArray<number>
  readonly history: number
  readonly tools: number
  readonly total: number
}

const sealedTokens = new WeakMap<ConversationMessage, number>()

/** Per-message token counts are cached: sealed messages are the same objects request after request. */
export const historyTokens = (messages: ReadonlyArray<ConversationMessage>): number => {
  let total = 0
  for (const message of messages) {
    let tokens = sealedTokens.get(message)
    if (tokens === undefined) {
      tokens = messageTokens(message)
      sealedTokens.set(message, tokens)
    }
    total += tokens
  }
  return total
}

export const measure = (
  sources: ReadonlyArray<ContextSourceText>,
  messages: ReadonlyArray<ConversationMessage>,
  tools: ReadonlyArray<ToolDefinition>
): ContextMeasure => {
  const perSource = sources.map((source) => textTokens(source.text))
  const history = historyTokens(messages)
  const toolTokens = toolsTokens(tools)
  return {
    sources: perSource,
    history,
    tools: toolTokens,
    total: REQUEST_OVERHEAD + perSource.reduce((a, b) => a + b, 0) + history + toolTokens
  }
}

/**
 * The tokens a request may use before older turns are compacted: a share (`threshold`) of
 * what the window leaves once the answer's output tokens are set aside.
 */
export const budgetOf = (info: ModelInfo, threshold: number): number =>
  Math.floor((info.contextWindow - Math.min(info.maxOutputTokens, Math.floor(info.contextWindow / 4))) * threshold)
