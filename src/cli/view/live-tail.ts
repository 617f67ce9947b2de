import type { PayloadOf } from "../../domain/events.js"
import { paint, sanitizeInline, type TerminalText, term } from "../terminal-text.js"
import { fitEnd } from "./width.js"

/** Lines of a running call's output shown under its line. */
export const LIVE_TAIL_LINES = 5
/** Characters of one line kept: no terminal shows more, and a line without end costs no more memory. */
const LINE_CHARS = 1_000

/**
 * The last lines of a running call's output (its `tool.output` events), as the terminal views
 * show them under the call's line until it ends: raw content, made safe only where it is drawn
 * (`liveTailLines`). Holds at most `maxLines` lines of `LINE_CHARS` characters, however much
 * the command prints.
 */
export class LiveTail {
  readonly #maxLines: number
  /** Finished lines, oldest first, and the line being written (the text after the last newline). */
  #lines: Array<string> = []
  #open = ""

  constructor(maxLines = LIVE_TAIL_LINES) {
    this.#maxLines = maxLines
  }

  /** One more `tool.output`: a line for the bytes the log left out before it, then its text. */
  push(payload: Pick<PayloadOf<"tool.output">, "text" | "skipped">): void {
    if (payload.skipped !== undefined) {
      if (this.#open !== "") this.#finish()
      this.#open = `[… ${payload.skipped} bytes not shown …]`
      this.#finish()
    }
    const pieces = payload.text.split("\n")
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) this.#finish()
      if (this.#open.length < LINE_CHARS) this.#open += piece.slice(0, LINE_CHARS - this.#open.length)
    }
  }

  #finish() {
    this.#lines.push(this.#open)
    this.#open = ""
    if (this.#lines.length > this.#maxLines) this.#lines = this.#lines.slice(-this.#maxLines)
  }

  /** The last lines, the one being written included when it has text. */
  lines(): ReadonlyArray<string> {
    const all = this.#open === "" ? this.#lines : [...this.#lines, this.#open]
    return all.slice(-this.#maxLines)
  }
}

/**
 * A tail's lines for a terminal: each on one line of at most `width` columns after `indent`,
 * dim, every control character shown visibly (an escape sequence, a carriage return, a bell
 * in a command's output is shown, never obeyed), tabs as spaces.
 */
export const liveTailLines = (
  lines: ReadonlyArray<string>,
  options: { readonly width: number; readonly color: boolean; readonly indent: string }
): ReadonlyArray<TerminalText> => {
  const dim = paint(options.color, "2")
  const room = Math.max(1, options.width - options.indent.length)
  return lines.map((line) => term`${options.indent}${dim(fitEnd(sanitizeInline(line.replace(/\t/g, "    ")).text, room))}`)
}
