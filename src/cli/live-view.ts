import type { AgentEvent } from "../domain/events.js"
import { shownCost, type Spend, sumSpend } from "../domain/spend.js"
import { atLineStart, drawTransient, eraseTransient } from "./io.js"
import { makeRenderer, type Segment } from "./render.js"
import { joinText, paint, type TerminalText, term } from "./terminal-text.js"
import { makeMarkdownStream } from "./view/markdown-stream.js"
import { LiveTail } from "./view/live-tail.js"
import { makeProgress, type Progress } from "./view/progress.js"
import { type ToolCallView, toolBlock, toolTarget } from "./view/tool-line.js"
import { emptyTally, tallyEvent, turnSummary } from "./view/turn-summary.js"

export interface LiveViewOptions {
  /** Colours on stdout (the answer) and on stderr (the rest). */
  readonly color: { readonly out: boolean; readonly err: boolean }
  /** The terminal's width now (it may be resized during the turn). */
  readonly columns: () => number
  /** The spinner while the model or a tool is awaited; none when stderr is no terminal. */
  readonly progress?: Progress
}

/** Lines under a tool call's line (a diff, a command's output) before `… N more lines`. */
const detailMax = 20

/**
 * `run` on a terminal: the answer as Markdown, printed block by block as each completes (nothing
 * is redrawn), each tool call as one line fitted to the terminal (an edit's diff or a command's
 * output under it, bounded), a spinner while waiting, and the turn's summary line at its end.
 * Every other event prints as the plain renderer prints it (`render.ts`), which this wraps.
 */
export const makeLiveView = (options: LiveViewOptions) => {
  const base = makeRenderer({ color: options.color.out, live: true })
  const answer = makeMarkdownStream({ color: options.color.out, width: options.columns })
  const calls = new Map<string, { readonly name: string; readonly input: unknown }>()
  const denied = new Set<string>()
  const progress = options.progress
  let tally = emptyTally
  /** The last lines of the command running now, shown under the spinner until its result prints. */
  let running: { readonly toolCallId: string; readonly tail: LiveTail } | undefined

  const answerLines = (lines: ReadonlyArray<TerminalText>): ReadonlyArray<Segment> =>
    lines.length === 0 ? [] : [...base.settle(), { channel: "out", text: term`${joinText(lines, "\n")}\n` }]

  /** What is awaited after this event, as the spinner says it. */
  const follow = (event: AgentEvent) => {
    if (progress === undefined) return
    switch (event.type) {
      case "turn.started":
      case "model.thinking_delta":
      case "tool.completed":
        return progress.wait("thinking")
      case "model.delta":
        return progress.wait("writing")
      case "tool.started": {
        const target = toolTarget(calls.get(event.payload.toolCallId)?.input)
        running = { toolCallId: event.payload.toolCallId, tail: new LiveTail() }
        return progress.wait(`${event.payload.name}${target === undefined ? "" : ` ${target.text}`}`)
      }
      case "tool.output": {
        if (running?.toolCallId !== event.payload.toolCallId) return
        running.tail.push(event.payload)
        return progress.output(running.tail.lines())
      }
      case "permission.requested":
      case "plan.proposed":
        return progress.pause()
      case "permission.resolved":
      case "plan.resolved":
        return progress.resume()
      case "turn.completed":
        return progress.wait(undefined)
    }
  }

  const render = (event: AgentEvent): ReadonlyArray<Segment> => {
    tally = tallyEvent(tally, event)
    follow(event)
    switch (event.type) {
      case "model.delta":
        return answerLines(answer.push(event.payload.text))
      case "model.tool_call_requested":
        // Its line comes when it ends, with how it ended.
        calls.set(event.payload.toolCallId, { name: event.payload.name, input: event.payload.input })
        return answerLines(answer.flush())
      case "tool.completed": {
        const { toolCallId, isError, durationMs, output, data } = event.payload
        const call = calls.get(toolCallId)
        calls.delete(toolCallId)
        if (running?.toolCallId === toolCallId) running = undefined
        const view: ToolCallView = {
          name: call?.name ?? "tool",
          input: call?.input,
          outcome: denied.delete(toolCallId) ? "denied" : isError ? "error" : "ok",
          durationMs,
          output,
          ...(data === undefined ? {} : { data })
        }
        const block = toolBlock(view, { width: options.columns(), color: options.color.err, maxLines: detailMax, indent: "  " })
        return [...answerLines(answer.flush()), ...base.settle(), { channel: "err", text: term`${block}\n` }]
      }
      case "permission.resolved":
        if (event.payload.decision !== "allow") denied.add(event.payload.toolCallId)
        break
    }
    return [...answerLines(answer.flush()), ...base.render(event)]
  }

  /** The turn's summary line, then the session's (its cost in all when it had earlier turns). */
  const closing = (sessionId: string, before: Spend): TerminalText => {
    const dim = paint(options.color.err, "2")
    const total = before.requests === 0 ? undefined : shownCost(sumSpend(before, tally.spend))
    const summary = turnSummary(tally, { width: options.columns(), color: options.color.err, now: Date.now() })
    return term`${summary}\n${dim(`session ${sessionId}${total === undefined ? "" : ` · ${total} in all`}`)}\n`
  }

  return { render, renderChild: base.renderChild, closing, close: () => progress?.stop() }
}

export type LiveView = ReturnType<typeof makeLiveView>

/** The view on this process's terminal: stdout's width, the spinner on stderr when stderr is a terminal too. */
export const terminalView = (color: { readonly out: boolean; readonly err: boolean }): LiveView => {
  const columns = () => process.stdout.columns ?? 80
  const progress =
    process.stderr.isTTY === true
      ? makeProgress({
          color: color.err,
          width: columns,
          now: Date.now,
          draw: (line) => drawTransient(process.stderr, line),
          erase: eraseTransient,
          canDraw: () => atLineStart(process.stdout) && atLineStart(process.stderr),
          intervalMs: 100
        })
      : undefined
  return makeLiveView({ color, columns, ...(progress === undefined ? {} : { progress }) })
}
