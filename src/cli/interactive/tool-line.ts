import type { ToolResultData } from "../../domain/tools.js"
import { oneLine } from "./safe-text.js"
import type { ChildCall, ToolBlock, ToolState } from "./timeline.js"
import type { Paint, Theme } from "./theme.js"

/** A field of a tool's input, when it is text. */
const field = (input: unknown, key: string): string | undefined => {
  if (typeof input !== "object" || input === null) return undefined
  const value: unknown = Reflect.get(input, key)
  return typeof value === "string" ? value : undefined
}

const SUBJECT_FIELDS = ["path", "file_path", "url", "uri", "query", "name"]

/** What a call acts on, as a person names it: the path, the command, the pattern; else its input on one line. */
export const toolSubject = (name: string, input: unknown, data: ToolResultData | undefined): string => {
  if (data?._tag === "shell") return `$ ${data.command}`
  if (data?._tag === "edit") return data.path
  const command = field(input, "command")
  if (command !== undefined) return `$ ${command}`
  const agent = field(input, "agent")
  if (agent !== undefined) return `${agent}: ${field(input, "prompt") ?? ""}`
  const pattern = field(input, "pattern")
  const path = field(input, "path")
  if (pattern !== undefined) return path === undefined ? pattern : `${pattern} in ${path}`
  for (const key of SUBJECT_FIELDS) {
    const value = field(input, key)
    if (value !== undefined) return value
  }
  // The list and the plan are shown on their own (the task list, the plan's block).
  if (name === "todo_write" || name === "exit_plan_mode") return ""
  const json = JSON.stringify(input)
  return json === undefined || json === "{}" ? "" : json
}

/** `12 ms`, `2.3 s`, `42 s`. */
export const duration = (ms: number): string =>
  ms < 1000 ? `${Math.round(ms)} ms` : ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`

const diffCounts = (diff: string): string => {
  let added = 0
  let removed = 0
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added++
    else if (line.startsWith("-") && !line.startsWith("---")) removed++
  }
  return `+${added} -${removed}`
}

const marks: Record<ToolState, string> = { requested: "·", asking: "?", running: "⋯", done: "✓", failed: "✗", denied: "⊘", cancelled: "⊘" }

const markPaint = (t: Theme, state: ToolState): Paint => {
  switch (state) {
    case "done":
      return t.green
    case "failed":
    case "denied":
      return t.red
    case "asking":
    case "running":
      return t.yellow
    case "requested":
    case "cancelled":
      return t.dim
  }
}

/**
 * A call's output in a few words: a failure's first line (it says why), else the one line there
 * is, or how many lines came back (a file read, a search): the whole of it is a key away.
 */
export const outputSummary = (output: string, failed: boolean): string => {
  const lines = output.replace(/\n$/, "").split("\n")
  if (failed || lines.length === 1) return oneLine(lines[0] ?? "", 160)
  return `${lines.length} lines`
}

/** How the call went, in a few words: `exit 1`, `+3 -1`, its first line of output, `waiting for your answer`. */
const outcome = (t: Theme, call: { readonly state: ToolState; readonly output?: string; readonly data?: ToolResultData; readonly verdict?: string }): string => {
  switch (call.state) {
    case "requested":
      return ""
    case "asking":
      return t.yellow("waiting for an answer")
    case "running":
      return t.yellow(call.verdict === undefined ? "running" : `${call.verdict} · running`)
    case "denied":
    case "cancelled":
      return t.red(oneLine(call.verdict ?? call.state, 160))
    case "failed":
    case "done": {
      const data = call.data
      const paint = call.state === "failed" ? t.red : t.dim
      const verdict = call.verdict === undefined ? "" : `${call.verdict} · `
      if (data?._tag === "shell") {
        const status = data.timedOut ? "timed out" : data.exitCode === null ? `killed (${data.signal ?? "signal"})` : `exit ${data.exitCode}`
        return paint(`${verdict}${status}`)
      }
      if (data?._tag === "edit") return paint(`${verdict}${diffCounts(data.diff)}`)
      return paint(`${verdict}${outputSummary(call.output ?? "", call.state === "failed")}`)
    }
  }
}

/**
 * One line for one tool call: mark, tool, what it acts on, how it went, how long it took. The
 * caller fits it to the width; everything from content is made safe here.
 */
export const toolLine = (t: Theme, call: ToolBlock | ChildCall, name: string): string => {
  const subject = oneLine(toolSubject(name, call.input, call.data), 200)
  const took = call.durationMs === undefined ? "" : ` ${t.dim(duration(call.durationMs))}`
  // A subagent's answer has its own line under the call.
  const answered = "subagent" in call && call.subagent !== undefined && (call.state === "done" || call.state === "failed")
  const said = answered ? "" : outcome(t, call)
  return `${markPaint(t, call.state)(marks[call.state])} ${t.bold(oneLine(name, 60))}${subject === "" ? "" : ` ${subject}`}${said === "" ? "" : `  ${said}`}${took}`
}
