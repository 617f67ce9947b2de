import { describe, expect, it } from "@effect/vitest"
import type { ToolBlock, ToolOutcome } from "../../web/src/timeline.js"
import { argsOf, cardDetail, exitText, mcpNameOf, readLines, toolViewOf } from "../../web/src/tool-view.js"

const call = (name: string, input: unknown, result?: ToolOutcome): ToolBlock => ({
  _tag: "tool",
  sequence: 1,
  toolCallId: "call_1",
  name,
  input,
  started: result !== undefined,
  abandoned: false,
  ...(result === undefined ? {} : { result })
})

const ok = (output: string, data?: ToolOutcome["data"]): ToolOutcome => ({ output, isError: false, durationMs: 3, ...(data === undefined ? {} : { data }) })
const diff = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1 +1 @@\n-a\n+b\n"

describe("a tool call as the page shows it", () => {
  it("shows a task list call as its list: the recorded one once it ran, the asked-for one before, raw arguments when it has no list's shape", () => {
    const todos = [{ content: "Read", status: "completed" }, { content: "Write", status: "in_progress" }] as const
    expect(toolViewOf(call("todo_write", { todos }))).toEqual({ _tag: "tasks", todos })
    expect(toolViewOf(call("todo_write", { todos: [] }, ok("Task list cleared.", { _tag: "todos", todos })))).toEqual({ _tag: "tasks", todos })
    expect(toolViewOf(call("todo_write", { todos: "nope" }))).toEqual({ _tag: "other", args: [{ key: "todos", value: "nope" }] })
  })

  it("shows a read's path and the lines it returned, else the lines it asked for", () => {
    expect(toolViewOf(call("read_file", { path: "src/a.ts" }))).toEqual({ _tag: "read", path: "src/a.ts", lines: undefined })
    expect(toolViewOf(call("read_file", { path: "src/a.ts", offset: 10, limit: 5 }))).toEqual({ _tag: "read", path: "src/a.ts", lines: "lines 10–14" })
    expect(toolViewOf(call("read_file", { path: "a.ts", offset: 7 }))).toMatchObject({ lines: "from line 7" })
    const rows = "     1\timport x\n     2\t\n     3\texport y"
    expect(toolViewOf(call("read_file", { path: "a.ts" }, ok(rows)))).toMatchObject({ lines: "lines 1–3" })
    const capped = "   101\ta\n   102\tb\n\n[Showing lines 101-102 of 5000 (limit of 2 lines). To read more, call read_file with offset=103.]"
    expect(readLines({ offset: 101, limit: 2 }, capped)).toBe("lines 101–102 of 5000")
    expect(readLines({}, "a.ts is empty")).toBeUndefined()
  })

  it("shows an edit's or a write's diff from its result, and says whether it created the file", () => {
    const edited = call("edit_file", { path: "notes.txt", old_string: "a", new_string: "b" }, ok("edited", { _tag: "edit", path: "notes.txt", before: "a\n", after: "b\n", diff }))
    expect(toolViewOf(edited)).toEqual({ _tag: "edit", path: "notes.txt", verb: "edited", diff })
    const created = call("write_file", { path: "new.txt", content: "b\n" }, ok("wrote", { _tag: "edit", path: "new.txt", before: null, after: "b\n", diff }))
    expect(toolViewOf(created)).toMatchObject({ verb: "created", diff })
    expect(toolViewOf(call("write_file", { path: "x.txt", content: "" }))).toEqual({ _tag: "edit", path: "x.txt", verb: "write", diff: undefined })
  })

  it("shows a command once, with its description, output and exit", () => {
    const data = { _tag: "shell" as const, command: "npm test", exitCode: 1, timedOut: false, truncated: true }
    const view = toolViewOf(call("shell", { command: "npm test", description: "run the tests" }, { output: "1 failed", isError: true, durationMs: 900, data }))
    expect(view).toEqual({
      _tag: "shell",
      command: "npm test",
      description: "run the tests",
      exit: { exitCode: 1, signal: undefined, timedOut: false, truncated: true }
    })
    expect(view._tag === "shell" && view.exit !== undefined ? exitText(view.exit) : "").toBe("exit code 1 · output truncated")
    expect(exitText({ exitCode: null, signal: "SIGKILL", timedOut: true, truncated: false })).toBe("signal SIGKILL · timed out")
    // The permission card does not repeat it.
    expect(cardDetail(view, "# run the tests\nnpm test")).toBeUndefined()
  })

  it("shows an MCP call's server, tool and arguments as a table", () => {
    expect(mcpNameOf("mcp__github__create_issue")).toEqual({ server: "github", tool: "create_issue" })
    expect(mcpNameOf("mcp__my-server__get__item")).toEqual({ server: "my-server", tool: "get__item" })
    expect(mcpNameOf("read_file")).toBeUndefined()
    const view = toolViewOf(call("mcp__github__create_issue", { title: "Bug", labels: ["web", "ui"], draft: false }))
    expect(view).toEqual({
      _tag: "mcp",
      server: "github",
      tool: "create_issue",
      args: [
        { key: "title", value: "Bug" },
        { key: "labels", value: '["web","ui"]' },
        { key: "draft", value: "false" }
      ]
    })
    expect(cardDetail(view, '{\n  "title": "Bug"\n}')).toBeUndefined()
  })

  it("shows any other call's arguments as a table too, and keeps the edit's proposed diff on its card", () => {
    expect(toolViewOf(call("grep", { pattern: "TODO", glob: "*.ts" }))).toEqual({
      _tag: "other",
      args: [
        { key: "pattern", value: "TODO" },
        { key: "glob", value: "*.ts" }
      ]
    })
    expect(argsOf("just text")).toEqual([{ key: "input", value: "just text" }])
    expect(argsOf(undefined)).toEqual([])
    // A call whose input is not what its tool takes is shown by its arguments.
    expect(toolViewOf(call("read_file", { file: "a" }))).toEqual({ _tag: "other", args: [{ key: "file", value: "a" }] })
    expect(cardDetail(toolViewOf(call("edit_file", { path: "notes.txt" })), diff)).toBe(diff)
  })
})
