import { truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui"
import { fromStyled } from "../terminal-text.js"
import { renderMarkdown } from "../view/markdown.js"
import { liveTailLines } from "../view/live-tail.js"
import { diffLines } from "../view/tool-line.js"
import { turnSummary } from "../view/turn-summary.js"
import { textWidth } from "../view/width.js"
import { oneLine, safeInline, safeText } from "./safe-text.js"
import type { Block, Tone } from "./timeline.js"
import type { Paint, Theme } from "./theme.js"
import { toolLine } from "./tool-line.js"

/** Lines of a detail shown whole before the rest is counted instead. */
const DETAIL_MAX_LINES = 400

const toneOf = (t: Theme, tone: Tone): Paint => {
  switch (tone) {
    case "dim":
      return t.dim
    case "info":
      return t.cyan
    case "warn":
      return t.yellow
    case "error":
      return t.red
    case "ok":
      return t.green
  }
}

/** `text` wrapped to the width, its first line after `first` and the rest after `rest` (same width). */
const hanging = (text: string, width: number, first: string, rest: string, firstWidth: number): Array<string> => {
  const inner = Math.max(1, width - firstWidth)
  return wrapTextWithAnsi(text, inner).map((line, i) => `${i === 0 ? first : rest}${line}`)
}

/** A line fitted to the width: cut with `…`, never wider (the screen refuses wider lines). One that fits is measured quickly (`textWidth`) and kept. */
export const fit = (line: string, width: number): string => {
  const room = Math.max(1, width)
  return textWidth(line) <= room ? line : truncateToWidth(line, room, "…")
}

/**
 * Draws blocks as lines of at most `width` columns. Assistant text and plans are Markdown, a
 * turn's last line is its summary, and an expanded call's diff or output is drawn as `run`
 * draws them (`view/`, shared with `run`); the rest is the session's own. Everything from content
 * is made safe (`safe-text.ts`) before a style is put around it, and every line is passed
 * through `fromStyled` last: whatever a renderer made, nothing but a colour reaches the terminal.
 */
export const makeBlockLines = (t: Theme) => {
  const raw = (block: Block, width: number): Array<string> => {
    switch (block.kind) {
      case "user": {
        const attached = block.attached ?? []
        const body = hanging(t.bold(safeText(block.text)), width, t.cyan("› "), "  ", 2)
        const steer = block.steer ? [t.dim("  (steering the running turn)")] : []
        const command = block.command === undefined ? [] : [fit(t.dim(`  (command file ${safeInline(block.command)})`), width)]
        return [...body, ...command, ...attached.map((path) => fit(t.dim(`  + attached ${safeInline(path)}`), width)), ...steer]
      }
      case "assistant":
        return renderMarkdown(block.text, width, t.color).map((line) => line.text)
      case "thinking": {
        const words = block.text.split(/\s+/).filter((word) => word !== "").length
        const said = block.redacted ? "[redacted]" : oneLine(block.text, 400)
        return [fit(t.dim(t.italic(`∴ thinking (${words} words): ${said}`)), width)]
      }
      case "tool": {
        const out = [fit(toolLine(t, block, block.name, width), width)]
        // A running command's last lines, under its line until its result folds them away.
        if (block.state === "running" && block.live !== undefined) {
          out.push(...liveTailLines(block.live.lines(), { width, color: t.color, indent: "  │ " }).map((line) => line.text))
        }
        const run = block.subagent
        if (run !== undefined) {
          for (const child of block.children) out.push(fit(toolLine(t, child, child.name, width, "  │ "), width))
          if (run.stopReason !== undefined) {
            const how = run.stopReason === "final" ? t.green("answered") : t.yellow(run.stopReason.replace("_", " "))
            out.push(fit(`${t.dim("  └ ")}${how}${t.dim(`: ${oneLine(run.answer ?? "", 300)}`)}`, width))
          }
        }
        return out
      }
      case "plan":
        return [
          fit(t.cyan("◆ plan proposed, to approve or send back:"), width),
          ...renderMarkdown(block.plan, Math.max(1, width - 2), t.color).map((line) => `${t.dim("│ ")}${line.text}`)
        ]
      case "note":
        return hanging(toneOf(t, block.tone)(safeText(block.text)), width, "", "  ", 2)
      case "summary":
        return [turnSummary(block.tally, { width, color: t.color }).text]
      case "detail": {
        const options = { width, color: t.color, maxLines: DETAIL_MAX_LINES, indent: "  " }
        const title = fit(t.bold(`▾ ${safeInline(block.title)}`), width)
        if (block.diff) return [title, ...diffLines(block.body, options).map((line) => line.text)]
        // A listing or an output, wrapped rather than cut: all of it is what was asked for.
        const all = safeText(block.body).replace(/\n$/, "").split("\n")
        const shown = all.slice(0, DETAIL_MAX_LINES)
        const more = all.length > shown.length ? [t.dim(`  … ${all.length - shown.length} more lines`)] : []
        return [title, ...shown.flatMap((line) => (line === "" ? [""] : hanging(line, width, "  ", "  ", 2))), ...more]
      }
    }
  }

  const lines = (block: Block, width: number): Array<string> => raw(block, width).map((line) => fromStyled(line, t.color).text)

  /** A blank line before a message, a plan or a detail, and where a run of lines changes kind. */
  const gapBefore = (previous: Block | undefined, block: Block): boolean => {
    if (previous === undefined) return false
    if (block.kind === "user" || block.kind === "assistant" || block.kind === "plan" || block.kind === "detail") return true
    return previous.kind === "assistant" || previous.kind === "user" || previous.kind === "plan" || previous.kind === "detail"
  }

  return { lines, gapBefore }
}
