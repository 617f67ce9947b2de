import type { TodoItem } from "../../../src/domain/tasks.js"

const marks: Record<TodoItem["status"], string> = { pending: "○", in_progress: "◐", completed: "●" }

/** Tasks in order, each with a mark for its status. */
export const TaskItems = ({ todos }: { readonly todos: ReadonlyArray<TodoItem> }) => (
  <ol class="tasks">
    {todos.map((todo, i) => (
      <li key={i} class={`task ${todo.status.replace("_", "-")}`}>
        <span class="mark" aria-label={todo.status.replace("_", " ")}>
          {marks[todo.status]}
        </span>{" "}
        {todo.content}
      </li>
    ))}
  </ol>
)

/**
 * The agent's task list, pinned at the top of the session: the list every request carries.
 * Open while work remains; folded to its one line once every task is done (a click opens it).
 */
export const TaskList = ({ tasks }: { readonly tasks: { readonly sequence: number; readonly todos: ReadonlyArray<TodoItem> } | undefined }) => {
  if (tasks === undefined || tasks.todos.length === 0) return null
  const done = tasks.todos.filter((todo) => todo.status === "completed").length
  const allDone = done === tasks.todos.length
  return (
    // `open` changes only when all-done does, so a list the reader opened or folded stays so meanwhile.
    <details class={allDone ? "task-list all-done" : "task-list"} open={!allDone} aria-label="Task list">
      <summary>
        Tasks {done}/{tasks.todos.length} done <span class="muted">(event #{tasks.sequence})</span>
      </summary>
      <TaskItems todos={tasks.todos} />
    </details>
  )
}
