import { describe, expect, it } from "@effect/vitest"
import { type Component, CURSOR_MARKER, type Terminal, TUI, visibleWidth } from "@mariozechner/pi-tui"
import xterm from "@xterm/headless"
import { vi } from "vitest"
import { InsertingTUI, prepareFrame } from "../../../src/cli/interactive/inserting-tui.js"
import { stubTerminal } from "../../support/tui-terminal.js"

/** A terminal that is a headless xterm: what it shows, scrollback included, and the bytes it was sent. */
const headless = (startCols: number, startRows: number) => {
  let cols = startCols
  let rows = startRows
  const term = new xterm.Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true })
  let bytes = 0
  let writes = 0
  let pending = Promise.resolve()
  const terminal = stubTerminal({
    write: (data) => {
      bytes += Buffer.byteLength(data)
      writes++
      pending = pending.then(() => new Promise<void>((resolve) => term.write(data, resolve)))
    },
    size: () => ({ columns: cols, rows })
  })
  /** Every line the terminal holds, the scrollback's and the screen's. */
  const lines = async () => {
    await pending
    return Array.from({ length: term.buffer.active.length }, (_, i) => term.buffer.active.getLine(i)?.translateToString(true) ?? "")
  }
  /** The window resized: pi-tui reads the size when it draws next. */
  const resize = async (newCols: number, newRows: number) => {
    await pending
    cols = newCols
    rows = newRows
    term.resize(newCols, newRows)
  }
  return { terminal, lines, resize, bytes: () => bytes, writes: () => writes }
}

class Lines implements Component {
  lines: Array<string> = []
  render(): Array<string> {
    return [...this.lines]
  }
  invalidate(): void {}
}

/** A small deterministic random source, so a failing case can be run again. */
const random = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
  return seed / 2 ** 31
}

/** The frames of a conversation growing above a live tail of a few lines: words streamed, lines inserted, the tail changing. */
const frames = (seed: number, count: number, width: number): Array<Array<string>> => {
  const next = random(seed)
  const conversation: Array<string> = ["header"]
  let spinner = 0
  let queued = 0
  const out: Array<Array<string>> = []
  for (let frame = 0; frame < count; frame++) {
    const roll = next()
    if (roll < 0.5) {
      // A few words onto the last line, wrapping onto new ones as an answer does.
      const words = 1 + Math.floor(next() * 12)
      for (let i = 0; i < words; i++) {
        const word = `w${frame}.${i}`
        const last = conversation.at(-1) ?? ""
        if (visibleWidth(last) + word.length + 1 > width) conversation.push(word)
        else conversation[conversation.length - 1] = last === "" ? word : `${last} ${word}`
      }
    } else if (roll < 0.6) {
      // Text that is not plain ASCII, or coloured, grows too.
      const last = conversation.at(-1) ?? ""
      const word = next() < 0.5 ? "界" : "\x1b[1mb\x1b[22m"
      if (visibleWidth(last) + 2 > width) conversation.push(word)
      else conversation[conversation.length - 1] = `${last}${word}`
    } else if (roll < 0.75) {
      // A whole block at once: a tool line, a paragraph break.
      const count = 1 + Math.floor(next() * 5)
      for (let i = 0; i < count; i++) conversation.push(i === 0 ? "" : `block ${frame} line ${i}`)
    } else if (roll < 0.85) {
      spinner++
    } else if (roll < 0.92) {
      queued = (queued + 1) % 3
    } else if (conversation.length > 3) {
      // A line further up changes (a tool's state).
      const at = conversation.length - 1 - Math.floor(next() * Math.min(conversation.length - 1, 4))
      conversation[at] = `changed ${frame}`
    }
    const tail = [
      ...Array.from({ length: queued }, (_, i) => `queued ${i}`),
      `spinner ${"|/-\\"[spinner % 4]}`,
      "─".repeat(width),
      `> editor${CURSOR_MARKER}`,
      "─".repeat(width),
      `model · mode default · turn ${Math.floor(frame / 7)}s`,
      "enter queues · esc cancels"
    ]
    out.push([...conversation, ...tail])
  }
  return out
}

/** A line as the terminal shows it: no colours, no cursor mark. */
const plainText = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, "").replace(CURSOR_MARKER, "")

/**
 * Draws the frames one after another, each once it is on the terminal, which must then hold
 * that frame's lines and nothing else; halfway through, the terminal gets wider and shorter.
 */
const draw = async (make: (terminal: Terminal) => TUI, list: ReadonlyArray<ReadonlyArray<string>>, cols: number, rows: number) => {
  const screen = headless(cols, rows)
  const tui = make(screen.terminal)
  const content = new Lines()
  tui.addChild(content)
  // The session starts where the shell's prompt was, under what the shell showed: pi-tui counts its lines from there.
  const shell = ["$ make", "built", "$ custom-agent"]
  screen.terminal.write(`${shell.join("\r\n")}\r\n`)
  const shellBytes = screen.bytes()
  tui.start()
  for (const [index, frame] of list.entries()) {
    if (index === Math.floor(list.length / 2)) await screen.resize(cols + 10, rows - 1)
    const writes = screen.writes()
    content.lines = [...frame]
    tui.requestRender()
    await vi.waitFor(() => expect(screen.writes()).toBeGreaterThan(writes), { timeout: 5_000, interval: 1 })
    const all = await screen.lines()
    // A full redraw (the resize, a change above the screen) clears the scrollback, the shell's lines with it.
    const shown = all.slice(0, shell.length).join("\n") === shell.join("\n") ? all.slice(shell.length) : all
    expect(shown.slice(0, frame.length)).toEqual(frame.map(plainText))
    expect(shown.slice(frame.length).filter((line) => line !== "")).toEqual([])
  }
  tui.stop()
  return { bytes: screen.bytes() - shellBytes, redraws: tui.fullRedraws }
}

describe("InsertingTUI", () => {
  it("recognizes the pi-tui it was written for (else it draws as plain pi-tui, and the bytes of a streamed answer grow again)", () => {
    expect(new InsertingTUI(headless(80, 24).terminal).opensRows).toBe(true)
  })

  for (const [seed, rows] of [
    [1, 12],
    [2, 30],
    [3, 8]
  ] as const) {
    it(`shows every frame's lines as plain pi-tui does, in fewer bytes (seed ${seed}, ${rows} rows)`, { timeout: 60_000 }, async () => {
      const cols = 40
      const list = frames(seed, 80, cols)
      const plain = await draw((terminal) => new TUI(terminal), list, cols, rows)
      const inserting = await draw((terminal) => new InsertingTUI(terminal), list, cols, rows)
      expect(inserting.redraws).toBe(plain.redraws)
      expect(inserting.bytes).toBeLessThan(plain.bytes)
    })
  }
})

describe("a frame adding more lines than the screen holds (a resumed session's history)", () => {
  const width = 40
  const history = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `\x1b[32m✓\x1b[39m read_file notes-${i}.md · 3 ms` : i % 3 === 1 ? `answer line ${i} · 界` : ""))
  const tail = ["─".repeat(width), `> ${CURSOR_MARKER}`, "─".repeat(width), "model · mode default"]

  it("is drawn as plain pi-tui draws it, in no more bytes, and then streams on", { timeout: 60_000 }, async () => {
    const list = [
      ["header", ...tail],
      ["header", ...history, ...tail],
      ["header", ...history, "more", ...tail],
      ["header", ...history, "more and more", ...tail],
      ["header", ...history, "more and more", "", `\x1b[1mdone\x1b[22m`, ...tail]
    ]
    for (const rows of [10, 30]) {
      const plain = await draw((terminal) => new TUI(terminal), list, width, rows)
      const inserting = await draw((terminal) => new InsertingTUI(terminal), list, width, rows)
      expect(inserting.redraws).toBe(plain.redraws)
      expect(inserting.bytes).toBeLessThanOrEqual(plain.bytes)
    }
  })

  it("is written here up to the editor's cursor mark, the rest left to pi-tui as appended lines", () => {
    const before = ["header", ...tail]
    const after = ["header", ...history, ...tail]
    const state = { previousLines: before.map((line) => `${line}\x1b[0m\x1b]8;;\x07`), hardwareCursorRow: 2, cursorRow: 4, previousViewportTop: 0, maxLinesRendered: 5, previousWidth: width, previousHeight: 10 }
    const prepared = prepareFrame(state, before, after, width, 10)
    const written = 1 + history.length + 1
    expect(prepared?.state.previousLines).toHaveLength(written)
    expect(prepared?.state.hardwareCursorRow).toBe(written - 1)
    expect(prepared?.state.previousViewportTop).toBe(written - 10)
    expect(prepared?.bytes.split("\r\n")).toHaveLength(history.length + 1)
  })
})
