import { Markdown, truncateToWidth, wrapTextWithAnsi } from "@mariozechner/pi-tui"
import { foldAttachments, oneLine, safeInline, safeText } from "./safe-text.js"
import type { Block, Tone } from "./timeline.js"
import { markdownTheme, type Paint, type Theme } from "./theme.js"
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

/** A line fitted to the width: cut with `…`, never wider (the screen refuses wider lines). */
export const fit = (line: string, width: number): string => truncateToWidth(line, Math.max(1, width), "…")

/**
 * Draws blocks as lines of at most `width` columns. Assistant text and plans are Markdown
 * (pi-tui's renderer, themed), re-wrapped whenever the width changes; everything from content
 * is made safe (`safe-text.ts`) before a style is put around it.
 */
export const makeBlockLines = (t: Theme) => {
  const mdTheme = markdownTheme(t)
  const markdown = new WeakMap<Block, { text: string; component: Markdown }>()

  const markdownLines = (block: Block, text: string, width: number): Array<string> => {
    const safe = safeText(text)
    let held = markdown.get(block)
    if (held === undefined) {
      held = { text: safe, component: new Markdown(safe, 0, 0, mdTheme) }
      markdown.set(block, held)
    } else if (held.text !== safe) {
      held.text = safe
      held.component.setText(safe)
    }
    return held.component.render(width)
  }

  const lines = (block: Block, width: number): Array<string> => {
    switch (block.kind) {
      case "user": {
        const { text, attached } = foldAttachments(block.text)
        const body = hanging(t.bold(safeText(text)), width, t.cyan("› "), "  ", 2)
        const steer = block.steer ? [t.dim("  (steering the running turn)")] : []
        const command = block.command === undefined ? [] : [fit(t.dim(`  (command file ${safeInline(block.command)})`), width)]
        return [...body, ...command, ...attached.map((path) => fit(t.dim(`  + attached ${safeInline(path)}`), width)), ...steer]
      }
      case "assistant":
        return markdownLines(block, block.text, width)
      case "thinking": {
        const words = block.text.split(/\s+/).filter((word) => word !== "").length
        const said = block.redacted ? "[redacted]" : oneLine(block.text, 400)
        return [fit(t.dim(t.italic(`∴ thinking (${words} words): ${said}`)), width)]
      }
      case "tool": {
        const out = [fit(toolLine(t, block, block.name), width)]
        const run = block.subagent
        if (run !== undefined) {
          for (const child of block.children) out.push(fit(`${t.dim("  │ ")}${toolLine(t, child, child.name)}`, width))
          if (run.stopReason !== undefined) {
            const how = run.stopReason === "final" ? t.green("answered") : t.yellow(run.stopReason.replace("_", " "))
            out.push(fit(`${t.dim("  └ ")}${how}${t.dim(`: ${oneLine(run.answer ?? "", 300)}`)}`, width))
          }
        }
        return out
      }
      case "plan":
        return [fit(t.cyan("◆ plan proposed, to approve or send back:"), width), ...markdownLines(block, block.plan, Math.max(1, width - 2)).map((line) => `${t.dim("│ ")}${line}`)]
      case "note":
        return hanging(toneOf(t, block.tone)(safeText(block.text)), width, "", "  ", 2)
      case "detail": {
        const all = safeText(block.body).replace(/\n$/, "").split("\n")
        const shown = all.slice(0, DETAIL_MAX_LINES)
        const painted = shown.map((line) =>
          !block.diff
            ? line
            : line.startsWith("+") && !line.startsWith("+++")
              ? t.green(line)
              : line.startsWith("-") && !line.startsWith("---")
                ? t.red(line)
                : t.dim(line)
        )
        const more = all.length > shown.length ? [t.dim(`… ${all.length - shown.length} more lines`)] : []
        return [
          fit(t.bold(`▾ ${safeInline(block.title)}`), width),
          ...painted.flatMap((line) => (line === "" ? [""] : hanging(line, width, "  ", "  ", 2))),
          ...more
        ]
      }
    }
  }

  /** A blank line before a message, a plan or a detail, and where a run of lines changes kind. */
  const gapBefore = (previous: Block | undefined, block: Block): boolean => {
    if (previous === undefined) return false
    if (block.kind === "user" || block.kind === "assistant" || block.kind === "plan" || block.kind === "detail") return true
    return previous.kind === "assistant" || previous.kind === "user" || previous.kind === "plan" || previous.kind === "detail"
  }

  return { lines, gapBefore }
}
