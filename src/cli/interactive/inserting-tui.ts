import { type Terminal, TUI } from "@mariozechner/pi-tui"

/**
 * pi-tui's TUI, drawing new lines of the conversation in the bytes of those lines alone.
 *
 * pi-tui rewrites every line from the first one that changed to the end of the screen. Under
 * the conversation sit the live lines (spinner, the editor and its borders, status, hints), so
 * each line an answer adds moved them down a row and wrote them all again: eleven to thirteen
 * times the answer's own bytes (docs/performance.md, issue 32). Before each frame this opens the
 * rows the new lines need right above the lines that end both frames the same, with the
 * terminal's own insert-line (`CSI n L`) and, when the screen is full, a scroll of the whole
 * screen first (so what leaves the top goes to the scrollback as it always did); pi-tui, told
 * that those rows are there and empty, then writes the new lines and whatever else changed.
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

/** What to do before a frame: the bytes that open the rows, and pi-tui's state once they are written. */
export interface OpenedRows {
  readonly bytes: string
  readonly state: Pick<RendererState, "previousLines" | "hardwareCursorRow" | "cursorRow" | "previousViewportTop" | "maxLinesRendered">
}

/**
 * The rows to open for going from `before` to `after` (both as the components drew them), on a
 * screen `height` rows high, or undefined when pi-tui's own way is as good or the only safe one:
 * nothing added, nothing kept below what changed (an append), or what would move is not all on
 * the screen. The new rows go right above the longest run of lines that ends both frames, and
 * come as empty strings in pi-tui's previous lines: no drawn line is empty (pi-tui ends each with
 * a reset), so it writes every one of them.
 */
export const openRows = (state: RendererState, before: ReadonlyArray<string>, after: ReadonlyArray<string>, height: number): OpenedRows | undefined => {
  const added = after.length - before.length
  if (added <= 0 || before.length !== state.previousLines.length) return undefined
  let firstChanged = 0
  while (firstChanged < before.length && before[firstChanged] === after[firstChanged]) firstChanged++
  let kept = 0
  while (kept < before.length - firstChanged && before[before.length - 1 - kept] === after[after.length - 1 - kept]) kept++
  if (kept === 0) return undefined
  const top = state.previousViewportTop
  const at = before.length - kept
  const onScreen = before.length - top
  const cursor = state.hardwareCursorRow - top
  if (at < top || onScreen > height || cursor < 0 || cursor >= height) return undefined
  // Empty rows under the content take the first new rows; the rest scroll the screen up.
  const below = Math.min(added, height - onScreen)
  const scrolled = added - below
  // What changed must stay on the screen, or pi-tui would clear it and draw everything again.
  if (firstChanged < top + scrolled) return undefined
  let bytes = BEGIN_SYNC
  let row = cursor
  const moveTo = (target: number) => {
    const by = target - row
    bytes += `${by > 0 ? `\x1b[${by}B` : by < 0 ? `\x1b[${-by}A` : ""}\r`
    row = target
  }
  if (below > 0) {
    moveTo(at - top)
    bytes += `\x1b[${below}L`
  }
  if (scrolled > 0) {
    moveTo(height - 1)
    bytes += "\n".repeat(scrolled)
    // The kept lines now end `scrolled` rows above the bottom; push them back down.
    moveTo(height - kept - scrolled)
    bytes += `\x1b[${scrolled}L`
  }
  const previousLines = [...state.previousLines.slice(0, at), ...Array.from({ length: added }, () => ""), ...state.previousLines.slice(at)]
  const previousViewportTop = top + scrolled
  return {
    bytes,
    state: {
      previousLines,
      hardwareCursorRow: row + previousViewportTop,
      cursorRow: state.cursorRow + added,
      previousViewportTop,
      maxLinesRendered: Math.max(state.maxLinesRendered, previousLines.length)
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

  /** Opens the new lines' rows when that saves pi-tui rewriting what sits below them; returns the previous lines it set. */
  #beforeFrame(): ReadonlyArray<unknown> | undefined {
    if (Reflect.get(this, "stopped") === true || this.hasOverlay()) return undefined
    const state = readState(this)
    const width = this.terminal.columns
    const height = this.terminal.rows
    if (state === undefined || state.previousLines.length === 0 || state.previousWidth !== width || state.previousHeight !== height) return undefined
    const after = super.render(width)
    this.#ahead = after
    const opened = openRows(state, this.#shown, after, height)
    if (opened === undefined) return undefined
    this.terminal.write(opened.bytes)
    for (const [key, value] of Object.entries(opened.state)) Reflect.set(this, key, value)
    return opened.state.previousLines
  }
}
