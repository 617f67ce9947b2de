import { joinText, paint, sanitizeInline, type TerminalText, term } from "../terminal-text.js"
import { liveTailLines } from "./live-tail.js"
import { fitEnd } from "./width.js"

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/**
 * The progress line: a spinner's frame, what is awaited (content: a tool's target) and the whole
 * seconds it has been awaited, in fewer than `width` columns (the last column is left free, so
 * the line never wraps and its erase takes all of it).
 */
export const progressLine = (label: string, elapsedMs: number, frame: number, options: { readonly width: number; readonly color: boolean }): TerminalText => {
  const seconds = ` ${Math.floor(elapsedMs / 1000)}s`
  const spinner = `${frames[frame % frames.length] ?? ""} `
  const room = Math.max(0, options.width - 1 - spinner.length - seconds.length)
  return term`${paint(options.color, "36")(spinner)}${fitEnd(sanitizeInline(label).text, room)}${paint(options.color, "2")(seconds)}`
}

export interface ProgressOptions {
  readonly color: boolean
  readonly width: () => number
  readonly now: () => number
  /** Draws the line in place (`io.ts`'s transient line), or takes it off. */
  readonly draw: (line: TerminalText) => void
  readonly erase: () => void
  /** Whether the cursor is at a line's start on the terminal (another writer left no line open). */
  readonly canDraw: () => boolean
  /** Milliseconds between frames; 0 draws only on `tick` (tests). */
  readonly intervalMs: number
}

/**
 * A spinner with the seconds spent waiting, while the model or a tool is awaited: `wait(label)`
 * starts another wait, `wait(undefined)` ends it, `pause`/`resume` leave the terminal
 * to a question. `output(lines)` shows a running command's last lines under it, until the next
 * wait. Any other output erases it first (the writers do, `io.ts`); it is redrawn on its next
 * frame. `stop` ends it for good.
 */
export const makeProgress = (options: ProgressOptions) => {
  let label: string | undefined
  let since = 0
  let frame = 0
  let paused = false
  let shown = false
  let below: ReadonlyArray<string> = []

  const hide = () => {
    if (!shown) return
    shown = false
    options.erase()
  }

  const tick = () => {
    if (label === undefined || paused || !options.canDraw()) return
    frame++
    shown = true
    const width = options.width()
    const line = progressLine(label, options.now() - since, frame, { width, color: options.color })
    // Each line leaves the last column free, as the spinner's does: none wraps, so all are erased.
    options.draw(below.length === 0 ? line : joinText([line, ...liveTailLines(below, { width: width - 1, color: options.color, indent: "  " })], "\n"))
  }

  const timer = options.intervalMs > 0 ? setInterval(tick, options.intervalMs) : undefined
  // A spinner never keeps the process alive.
  timer?.unref()

  return {
    /** Another wait (its seconds counted from now), or none. */
    wait: (next: string | undefined) => {
      if (next === label) return
      if (next === undefined) hide()
      label = next
      since = options.now()
      below = []
    },
    /** A running command's last lines, shown under the spinner from its next frame on. */
    output: (lines: ReadonlyArray<string>) => {
      below = lines
    },
    pause: () => {
      paused = true
      hide()
    },
    resume: () => {
      paused = false
    },
    tick,
    stop: () => {
      if (timer !== undefined) clearInterval(timer)
      label = undefined
      hide()
    }
  }
}

export type Progress = ReturnType<typeof makeProgress>
