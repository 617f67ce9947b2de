import { type Terminal, TUI } from "@mariozechner/pi-tui"
import { textWidth } from "../view/width.js"

/**
 * pi-tui's TUI, drawing new lines of the conversation in the bytes of those lines alone.
 *
 * pi-tui rewrites every line from the first one that changed to the last (the equal ones
 * between included). Under the conversation sit the live lines (spinner, the editor and its
 * borders, status, hints), so each line an answer added moved them down a row and wrote them
 * all again: ten to thirteen times the answer's own bytes (docs/performance.md, issue 32).
 * Before each frame this makes the rows the new lines need as pi-tui would (new rows under the
 * content; when the screen is full it scrolls, and what leaves its top goes to the scrollback
 * as before), pushes the lines under the new ones down into them with the terminal's
 * insert-line (`CSI n L`), and writes each changed line alone, a line that only grew by its new
 * end; pi-tui, told what is on the screen now, writes only what is left.
 *
 * That telling is done on pi-tui's private renderer state (previous lines, cursor row, viewport
 * top), which its public API does not reach: everything that touches it is in this file. The
 * state's shape is checked once; a pi-tui that differs draws as plain pi-tui does
 * (`opensRows` false), and test/cli/interactive/inserting-tui.test.ts says so.
 * A resize is pi-tui's own: it clears the screen and the scrollback and draws the whole
 * conversation again at the new width.
 */

/** pi-tui's renderer state as of 0.73 (`tui.js`, `doRender`): rows are line indices, the screen's row is `index - previousViewportTop`. */
interface RendererState {
  readonly previousLines: ReadonlyArray<unknown>
  readonly hardwareCursorRow: number
  readonly cursorRow: number
  readonly previousViewportTop: number
  readonly maxLinesRendered: number
  readonly previousWidth: number
  readonly previousHeight: number
}

const numberAt = (target: object, key: string): number | undefined => {
  const value: unknown = Reflect.get(target, key)
  return typeof value === "number" ? value : undefined
}

const readState = (tui: TUI): RendererState | undefined => {
  const previousLines: unknown = Reflect.get(tui, "previousLines")
  const hardwareCursorRow = numberAt(tui, "hardwareCursorRow")
  const cursorRow = numberAt(tui, "cursorRow")
  const previousViewportTop = numberAt(tui, "previousViewportTop")
  const maxLinesRendered = numberAt(tui, "maxLinesRendered")
  const previousWidth = numberAt(tui, "previousWidth")
  const previousHeight = numberAt(tui, "previousHeight")
  if (
    !Array.isArray(previousLines) ||
    hardwareCursorRow === undefined ||
    cursorRow === undefined ||
    previousViewportTop === undefined ||
    maxLinesRendered === undefined ||
    previousWidth === undefined ||
    previousHeight === undefined
  ) {
    return undefined
  }
  return { previousLines, hardwareCursorRow, cursorRow, previousViewportTop, maxLinesRendered, previousWidth, previousHeight }
}

const BEGIN_SYNC = "\x1b[?2026h"
const END_SYNC = "\x1b[?2026l"
/** What pi-tui appends to every line it draws (`TUI.SEGMENT_RESET`). */
const LINE_RESET = "\x1b[0m\x1b]8;;\x07"
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/
/** Controls and escapes: a suffix holding one is not written on its own. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/

/**
 * A line as pi-tui keeps it once drawn (`applyLineResets`), or undefined for the lines this
 * module leaves to pi-tui: the editor's cursor mark (an APC sequence), images (APC and OSC),
 * the characters pi-tui rewrites (Thai and Lao AM), a line wider than the screen (pi-tui stops).
 * Guessing a form pi-tui does not produce costs a line written twice, never a wrong screen.
 * Measured with `textWidth` (pi-tui's measure, without its per-grapheme pass for plain text,
 * marks and colours).
 */
const drawnForm = (line: string, width: number): string | undefined =>
  line.includes("\x1b_") || line.includes("\x1b]") || /[\u0e33\u0eb3]/.test(line) || textWidth(line) > width ? undefined : `${line}${LINE_RESET}`

/** What to write before a frame, and pi-tui's state once it is written. */
export interface Prepared {
  readonly bytes: string
  readonly state: Pick<RendererState, "previousLines" | "hardwareCursorRow" | "cursorRow" | "previousViewportTop" | "maxLinesRendered">
}

/**
 * How many lines at the end of `before` to move down by `added` rows (0: none), the count that
 * leaves the fewest lines to write: those that differ above the moved ones, plus the moved ones
 * that differ from the line that will be in their row.
 */
const linesToMove = (before: ReadonlyArray<string>, after: ReadonlyArray<string>, firstChanged: number, added: number): number => {
  const n = before.length
  let unmoved = 0
  for (let i = firstChanged; i < n; i++) if (before[i] !== after[i]) unmoved++
  let best = 0
  let bestCost = unmoved
  let moved = 0
  for (let kept = 1; kept <= n - firstChanged; kept++) {
    const i = n - kept
    if (before[i] !== after[i]) unmoved--
    if (before[i] !== after[i + added]) moved++
    if (unmoved + moved < bestCost) {
      best = kept
      bestCost = unmoved + moved
    }
  }
  return best
}

/** A relative move of the cursor by `by` lines, to the line's start. */
const moveLines = (by: number) => `${by > 0 ? `\x1b[${by}B` : by < 0 ? `\x1b[${-by}A` : ""}\r`

/**
 * A frame adding more lines than the screen holds (a resumed session's history, drawn at
 * once): written from the first changed line down as pi-tui writes it (each row cleared, rows
 * joined by CRLF, the screen scrolling into the scrollback), but measured with `textWidth`:
 * pi-tui measures every line it writes grapheme by grapheme, most of a resume's drawing time
 * (docs/performance.md). It stops before the first line left to pi-tui (the editor's cursor
 * mark), which pi-tui then writes with the rest, as lines appended after these.
 */
const rewriteFrom = (state: RendererState, after: ReadonlyArray<string>, firstChanged: number, width: number, height: number): Prepared | undefined => {
  const forms: Array<string> = []
  for (let i = firstChanged; i < after.length; i++) {
    const form = drawnForm(after[i] ?? "", width)
    if (form === undefined) break
    forms.push(form)
  }
  if (forms.length === 0) return undefined
  const last = firstChanged + forms.length - 1
  return {
    bytes: `${BEGIN_SYNC}${moveLines(firstChanged - state.hardwareCursorRow)}\x1b[2K${forms.join("\r\n\x1b[2K")}`,
    state: {
      previousLines: [...state.previousLines.slice(0, firstChanged), ...forms],
      hardwareCursorRow: last,
      cursorRow: last,
      previousViewportTop: Math.max(state.previousViewportTop, last - height + 1),
      maxLinesRendered: Math.max(state.maxLinesRendered, last + 1)
    }
  }
}

/**
 * What to write before pi-tui draws the frame going from `before` to `after` (both as the
 * components drew them) on a screen `width` x `height`, or undefined to leave it all to pi-tui.
 *
 * New lines get their rows opened above the lines that move down (see `linesToMove`): new rows
 * under the content, then insert-line where they go; they come as empty strings in pi-tui's
 * previous lines, which no drawn line is, so pi-tui writes each (unless this does). Then every
 * changed line on the screen that pi-tui would draw as `drawnForm` says is written here, alone,
 * and pi-tui told it is there: a line that only grew (a streamed answer's last line) by its
 * new end, the others whole. pi-tui writes from its first changed line to its last, the equal
 * ones between included, so the status line ticking under the editor would otherwise bring the
 * editor's borders along.
 */
export const prepareFrame = (state: RendererState, before: ReadonlyArray<string>, after: ReadonlyArray<string>, width: number, height: number): Prepared | undefined => {
  if (before.length !== state.previousLines.length) return undefined
  let firstChanged = 0
  while (firstChanged < before.length && before[firstChanged] === after[firstChanged]) firstChanged++
  if (firstChanged === before.length) return undefined
  const added = after.length - before.length
  const top = state.previousViewportTop
  if (before.length - top > height || state.hardwareCursorRow < top || state.hardwareCursorRow >= top + height) return undefined
  // The screen's first line once the content is `added` lines longer, as pi-tui counts it.
  const grownTop = Math.max(top, after.length - height)
  if (added > height && firstChanged < grownTop && firstChanged >= top) return rewriteFrom(state, after, firstChanged, width, height)
  // What changed must stay on the screen, or pi-tui would clear it and draw everything again.
  const kept = added > 0 && firstChanged >= grownTop ? linesToMove(before, after, firstChanged, added) : 0
  const at = before.length - kept
  let bytes = BEGIN_SYNC
  // Lines, not rows of the screen: moves are relative, so where pi-tui's first line sits on
  // the screen (it starts where the shell's prompt was) does not matter.
  let cursor = state.hardwareCursorRow
  const moveTo = (line: number, column?: number) => {
    const by = line - cursor
    bytes += `${by > 0 ? `\x1b[${by}B` : by < 0 ? `\x1b[${-by}A` : ""}${column === undefined ? "\r" : `\x1b[${column + 1}G`}`
    cursor = line
  }
  const lines: Array<unknown> = [...state.previousLines]
  const shown: Array<string | undefined> = [...before]
  let viewportTop = top
  if (kept > 0) {
    // New rows under the content, made as pi-tui makes them: the screen scrolls when it is
    // full, what leaves its top going to the scrollback...
    moveTo(before.length - 1)
    bytes += "\n".repeat(added)
    cursor += added
    // ...then the lines that move pushed down into them; insert-line leaves empty rows above.
    moveTo(at)
    bytes += `\x1b[${added}L`
    lines.splice(at, 0, ...Array.from({ length: added }, () => ""))
    shown.splice(at, 0, ...Array.from({ length: added }, () => undefined))
    viewportTop = grownTop
  }
  const wrote = bytes.length
  for (let i = firstChanged; i < Math.min(lines.length, after.length); i++) {
    const line = after[i] ?? ""
    const was = shown[i]
    if (was === line) continue
    // A changed line above the screen: pi-tui clears the screen and draws everything again.
    if (i < viewportTop || i >= viewportTop + height) return undefined
    const form = drawnForm(line, width)
    if (form === undefined) continue
    const grown = was === undefined ? undefined : line.startsWith(was) && PRINTABLE_ASCII.test(was) ? line.slice(was.length) : undefined
    if (grown !== undefined && was !== undefined && PRINTABLE_ASCII.test(grown.slice(0, 1)) && !CONTROL.test(grown)) {
      moveTo(i, was.length)
      bytes += grown
    } else {
      moveTo(i)
      // Every line written ends with the reset, so one without escapes needs none of its own.
      const text = line.includes("\x1b") ? form : line
      bytes += was === undefined ? text : `\x1b[2K${text}`
    }
    lines[i] = form
  }
  if (kept === 0 && bytes.length === wrote) return undefined
  return {
    bytes,
    state: {
      previousLines: lines,
      hardwareCursorRow: cursor,
      cursorRow: kept > 0 ? state.cursorRow + added : state.cursorRow,
      previousViewportTop: viewportTop,
      maxLinesRendered: Math.max(state.maxLinesRendered, lines.length)
    }
  }
}

export class InsertingTUI extends TUI {
  /** Whether this pi-tui's renderer is the one this was written for: else it draws as plain pi-tui. */
  readonly opensRows: boolean
  /** The frame drawn ahead of pi-tui's render, handed to it when it asks. */
  #ahead: Array<string> | undefined
  /** The last frame as the components drew it (pi-tui edits its copy in place: the cursor mark, resets). */
  #shown: ReadonlyArray<string> = []

  constructor(terminal: Terminal) {
    super(terminal)
    const doRender: unknown = Reflect.get(TUI.prototype, "doRender")
    this.opensRows = typeof doRender === "function" && readState(this) !== undefined && typeof Reflect.get(this, "stopped") === "boolean"
    if (typeof doRender === "function" && this.opensRows) {
      Reflect.set(this, "doRender", () => {
        const patched = this.#beforeFrame()
        Reflect.apply(doRender, this, [])
        // pi-tui replaces its previous lines whenever it writes; if it did not, close the block opened here.
        if (patched !== undefined && Reflect.get(this, "previousLines") === patched) this.terminal.write(END_SYNC)
      })
    }
  }

  override render(width: number): Array<string> {
    const lines = this.#ahead ?? super.render(width)
    this.#ahead = undefined
    this.#shown = [...lines]
    return lines
  }

  /** Writes what `prepareFrame` gives before pi-tui draws the frame; returns the previous lines it gave pi-tui. */
  #beforeFrame(): ReadonlyArray<unknown> | undefined {
    if (Reflect.get(this, "stopped") === true || this.hasOverlay()) return undefined
    const state = readState(this)
    const width = this.terminal.columns
    const height = this.terminal.rows
    if (state === undefined || state.previousLines.length === 0 || state.previousWidth !== width || state.previousHeight !== height) return undefined
    const after = super.render(width)
    this.#ahead = after
    const prepared = prepareFrame(state, this.#shown, after, width, height)
    if (prepared === undefined) return undefined
    this.terminal.write(prepared.bytes)
    for (const [key, value] of Object.entries(prepared.state)) Reflect.set(this, key, value)
    return prepared.state.previousLines
  }

  /** The terminal's bell (BEL), written alone. */
  bell(): void {
    this.terminal.write("\x07")
  }
}
