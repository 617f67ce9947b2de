import { type ToolCallView, toolLine as finishedLine, toolTarget } from "../view/tool-line.js"
import { textWidth } from "../view/width.js"
import { oneLine } from "./safe-text.js"
import type { ChildCall, ToolBlock, ToolState } from "./timeline.js"
import type { Paint, Theme } from "./theme.js"

/** What a call acts on, as a person names it (`view/tool-line.ts`'s choice: the path, the command, the pattern), or nothing. */
export const toolSubject = (input: unknown, call?: Pick<ToolCallView, "data">): string => toolTarget(input, call?.data)?.text ?? ""

const marks: Record<ToolState, string> = { requested: "·", asking: "?", running: "⋯", done: "✓", failed: "✗", denied: "⊘", cancelled: "⊘" }

const markPaint = (t: Theme, state: ToolState): Paint => {
  switch (state) {
    case "asking":
    case "running":
      return t.yellow
    case "done":
      return t.green
    case "failed":
    case "denied":
      return t.red
    case "requested":
    case "cancelled":
      return t.dim
  }
}

/** A finished call as `run` shows it (the shared view); undefined while it has not finished. */
const asFinished = (call: ToolBlock | ChildCall, name: string): ToolCallView | undefined => {
  if (call.durationMs === undefined) return undefined
  const outcome = call.state === "done" ? "ok" : call.state === "denied" ? "denied" : call.state === "failed" || call.state === "cancelled" ? "error" : undefined
  if (outcome === undefined) return undefined
  return { name, input: call.input, outcome, durationMs: call.durationMs, output: call.output ?? "", ...(call.data === undefined ? {} : { data: call.data }) }
}

/** While it runs: `waiting for an answer`, `running`, with who allowed it when that is news. */
const progress = (t: Theme, state: ToolState, verdict: string | undefined): string => {
  switch (state) {
    case "asking":
      return t.yellow("waiting for an answer")
    case "running":
      return t.yellow(verdict === undefined ? "running" : `${verdict} · running`)
    case "denied":
    case "cancelled":
      return t.red(verdict ?? state)
    case "requested":
    case "done":
    case "failed":
      return ""
  }
}

/**
 * One line for one tool call in at most `width` columns. A finished call is drawn as `run` draws
 * it (mark, tool, target, how it ended, how long: `view/tool-line.ts`), with who allowed or
 * denied it after it when that is news (another client, a rule); a call still waiting or
 * running says so. Everything from content is made safe.
 */
export const toolLine = (t: Theme, call: ToolBlock | ChildCall, name: string, width: number, indent = ""): string => {
  const verdict = "verdict" in call ? call.verdict : undefined
  const finished = asFinished(call, name)
  if (finished !== undefined) {
    const said = verdict === undefined ? "" : t.dim(` · ${oneLine(verdict, 120)}`)
    const room = Math.max(20, width - textWidth(said))
    const line = finishedLine(finished, { width: room, color: t.color, indent }).text
    return textWidth(line) + textWidth(said) <= width ? `${line}${said}` : line
  }
  const subject = oneLine(toolSubject(call.input, call), 200)
  const said = progress(t, call.state, verdict === undefined ? undefined : oneLine(verdict, 160))
  return `${indent}${markPaint(t, call.state)(marks[call.state])} ${t.bold(oneLine(name, 60))}${subject === "" ? "" : ` ${subject}`}${said === "" ? "" : `  ${said}`}`
}
