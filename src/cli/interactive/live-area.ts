import type { Component } from "@mariozechner/pi-tui"
import type { QueuedMessage } from "../../domain/events.js"
import { taskCounts, type TodoItem } from "../../domain/tasks.js"
import { fit } from "./block-lines.js"
import { oneLine } from "./safe-text.js"
import type { Theme } from "./theme.js"

/** Tasks listed before the rest are counted. */
const MAX_TASKS = 8

/** The task list while any task is open: one line each, the one in progress marked. */
export const taskLines = (t: Theme, todos: ReadonlyArray<TodoItem>, width: number): Array<string> => {
  const counts = taskCounts(todos)
  if (todos.length === 0 || counts.completed === todos.length) return []
  const shown = todos.slice(0, MAX_TASKS).map((todo) => {
    const text = oneLine(todo.content, 200)
    if (todo.status === "completed") return fit(t.dim(`  ✓ ${text}`), width)
    if (todo.status === "in_progress") return fit(`  ${t.yellow("▸")} ${t.bold(text)}`, width)
    return fit(`  ☐ ${text}`, width)
  })
  const more = todos.length > MAX_TASKS ? [t.dim(`  … ${todos.length - MAX_TASKS} more (/tasks)`)] : []
  return [fit(t.cyan(`☰ tasks ${counts.completed}/${todos.length} done`), width), ...shown, ...more]
}

/** Messages waiting in the session's inbox: the ones for the next turn and the ones steering this one. */
export const queueLines = (t: Theme, queued: ReadonlyArray<QueuedMessage>, steering: ReadonlyArray<QueuedMessage>, width: number): Array<string> => [
  ...steering.map((message) => fit(t.dim(`↪ steering: ${oneLine(message.content, 200)}`), width)),
  ...queued.map((message) => fit(t.dim(`⧗ queued: ${oneLine(message.content, 200)}`), width))
]

export interface LiveState {
  readonly tasks: ReadonlyArray<TodoItem>
  readonly queued: ReadonlyArray<QueuedMessage>
  readonly steering: ReadonlyArray<QueuedMessage>
}

/**
 * What the session is doing now, between the conversation and the editor: the open task list
 * and the inbox. Drawn from the session's state on every frame (it is small), so it is never stale.
 */
export class LiveArea implements Component {
  readonly #theme: Theme
  readonly #state: () => LiveState

  constructor(theme: Theme, state: () => LiveState) {
    this.#theme = theme
    this.#state = state
  }

  render(width: number): Array<string> {
    const state = this.#state()
    const lines = [...taskLines(this.#theme, state.tasks, width), ...queueLines(this.#theme, state.queued, state.steering, width)]
    return lines.length === 0 ? [] : ["", ...lines]
  }

  invalidate(): void {
    // Drawn from the state each time: nothing cached.
  }
}
