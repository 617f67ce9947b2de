import * as Schema from "effect/Schema"

/** A task's state, as Claude Code's TodoWrite has it. */
export const TodoStatus = Schema.Literal("pending", "in_progress", "completed")
export type TodoStatus = typeof TodoStatus.Type

/** One entry of the agent's task list; `content` is kept exactly as the model wrote it. */
export const TodoItem = Schema.Struct({
  content: Schema.String,
  status: TodoStatus
})
export type TodoItem = typeof TodoItem.Type

const marks: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", completed: "[x]" }

/**
 * The task list as every request carries it (and `sessions show` prints it): one line per
 * task, in the model's order, its content verbatim (`todo_write` takes only one-line tasks).
 */
export const taskListLines = (todos: ReadonlyArray<TodoItem>): ReadonlyArray<string> =>
  todos.map((todo, i) => `${i + 1}. ${marks[todo.status]} ${todo.content} (${todo.status.replace("_", " ")})`)

/** Counts by status, for one-line summaries. */
export const taskCounts = (todos: ReadonlyArray<TodoItem>): Record<TodoStatus, number> => {
  const counts: Record<TodoStatus, number> = { pending: 0, in_progress: 0, completed: 0 }
  for (const todo of todos) counts[todo.status]++
  return counts
}
