import type { AgentEvent, EventOf, PayloadOf } from "../domain/events.js"
import { summarySectionHeadings } from "../domain/summary-sections.js"
import { conversationSpans, inSpans, type Rewind } from "../domain/rewound.js"
import { type TodoItem, taskListLines } from "../domain/tasks.js"
import type { Segment } from "./render.js"
import { indentLines, joinText, paint, type Printable, type TerminalText, term } from "./terminal-text.js"

/** A compaction as `sessions show --context` shows it: the events it replaced are `from`..`through`. */
export interface CompactionEntry {
  readonly sequence: number
  readonly from: number
  readonly through: number
  readonly payload: PayloadOf<"context.compacted">
}

/** What a first read of the log finds: the compactions, the rewinds, the task list and the last request's size. */
export interface ContextOverview {
  readonly compactions: Array<CompactionEntry>
  readonly rewinds: Array<Rewind>
  readonly tasks: Array<EventOf<"task.updated">>
  lastBuilt: EventOf<"context.built"> | undefined
  last: number
}

export const emptyOverview = (): ContextOverview => ({ compactions: [], rewinds: [], tasks: [], lastBuilt: undefined, last: 0 })

export const foldOverview = (overview: ContextOverview, event: AgentEvent): ContextOverview => {
  overview.last = event.sequence
  switch (event.type) {
    case "context.compacted": {
      const previous = overview.compactions.at(-1)?.through ?? 0
      overview.compactions.push({ sequence: event.sequence, from: event.payload.fromSequence ?? previous + 1, through: event.payload.throughSequence, payload: event.payload })
      break
    }
    case "conversation.rewound":
      overview.rewinds.push({ sequence: event.sequence, toSequence: event.payload.toSequence })
      break
    case "task.updated":
      overview.tasks.push(event)
      break
    case "context.built":
      overview.lastBuilt = event
      break
    default:
      break
  }
  return overview
}

const indent = (text: string, prefix: string) =>
  text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => `${prefix}${line}`)
    .join("\n")

const taskLines = (todos: ReadonlyArray<TodoItem>) => (todos.length === 0 ? ["   (empty)"] : taskListLines(todos).map((line) => `   ${line}`))

/**
 * `sessions show --context`: each compaction with its range, tokens, summary sections, the
 * files the log says changed and, under it, the events it replaced; then what the model sees
 * now (which summary, which events verbatim, the task list, the last request's size).
 * `render` prints one replaced event (the timeline's renderer); the events come in log order.
 */
export const makeContextView = (overview: ContextOverview, render: (event: AgentEvent) => ReadonlyArray<Segment>, color: boolean) => {
  const bold = paint(color, "1")
  const dim = paint(color, "2")
  const held = conversationSpans(overview.rewinds, overview.last)
  const inEffect = overview.compactions.filter((c) => inSpans(held, c.sequence)).at(-1)
  const printed = new Set<number>()
  let current: CompactionEntry | undefined
  let buffer: Array<Printable> = []

  const header = (c: CompactionEntry): TerminalText => {
    const p = c.payload
    const state = inSpans(held, c.sequence) ? (c === inEffect ? "in effect" : "folded into a later summary") : "undone by a rewind: the model sees these events verbatim again"
    const lines: Array<Printable> = [
      bold(`── compaction #${c.sequence} (${p.trigger}, ${state})`),
      `   replaced events #${c.from}–#${c.through} (${p.turns.length} turn(s)); history ${p.tokensBefore} → ${p.tokensAfter} tokens${p.pieces === undefined ? "" : `; ${p.pieces} summary request(s)`}`
    ]
    if (p.sections === undefined) lines.push("   summary:", indent(p.summary, "     "))
    else {
      for (const [key, name] of summarySectionHeadings) {
        const text = p.sections[key]
        if (text !== "") lines.push(`   ${name}:`, indent(text, "     "))
      }
    }
    if (p.changedFiles !== undefined) lines.push(`   files changed through #${c.through} (from the log): ${p.changedFiles.length === 0 ? "none" : p.changedFiles.join(", ")}`)
    lines.push(dim(`   events it replaced:`))
    return term`${joinText(lines, "\n")}\n`
  }

  const flush = (): ReadonlyArray<Segment> => {
    const text = joinText(buffer)
    buffer = []
    return text.text === "" ? [] : [{ channel: "out", text: term`${indentLines(text, dim("   │ "))}\n` }]
  }

  /** The segments for one event of the log: a compaction's header where its range starts, the event (indented) inside a range, nothing outside. */
  const view = (event: AgentEvent): ReadonlyArray<Segment> => {
    const out: Array<Segment> = []
    if (current !== undefined && event.sequence > current.through) {
      out.push(...flush())
      current = undefined
    }
    if (current === undefined) {
      const starting = overview.compactions.find((c) => c.from <= event.sequence && event.sequence <= c.through && !printed.has(c.sequence))
      if (starting !== undefined) {
        printed.add(starting.sequence)
        current = starting
        out.push({ channel: "out", text: header(starting) })
      }
    }
    // Rendered even outside a range, so the renderer keeps its turn numbers and tool names.
    const segments = render(event)
    if (current !== undefined) buffer.push(...segments.map((s) => s.text))
    return out
  }

  const end = (): ReadonlyArray<Segment> => {
    const out: Array<Segment> = [...flush()]
    for (const c of overview.compactions) if (!printed.has(c.sequence)) out.push({ channel: "out", text: term`${header(c)}${dim("   │ (none)")}\n` })
    const lines: Array<Printable> = [bold("── what the model sees now")]
    if (overview.compactions.length === 0) lines.push("   no compaction: the whole conversation verbatim")
    else if (inEffect === undefined) lines.push("   no summary in effect (every compaction was undone by a rewind): the conversation verbatim")
    else lines.push(`   the summary of compaction #${inEffect.sequence} instead of events up to #${inEffect.through}, then the events after it verbatim`)
    const tasks = overview.tasks.filter((t) => inSpans(held, t.sequence)).at(-1)
    if (tasks === undefined) lines.push("   no task list")
    else lines.push(`   task list (task.updated #${tasks.sequence}), carried whole in every request:`, ...taskLines(tasks.payload.todos))
    const built = overview.lastBuilt
    if (built !== undefined) {
      lines.push(`   last request (#${built.sequence}): ${built.payload.totalTokens} of ${built.payload.budget} tokens (history ${built.payload.historyTokens}, tools ${built.payload.toolsTokens}${built.payload.tasks === undefined ? "" : `, task list ${built.payload.tasks.tokens}`})`)
    }
    out.push({ channel: "out", text: term`${joinText(lines, "\n")}\n` })
    return out
  }

  return { view, end }
}
