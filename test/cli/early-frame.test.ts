import { describe, expect, it } from "@effect/vitest"
import { EventEmitter } from "node:events"
import { drawEarlyFrame, fitColumns, frameLines, printable } from "../../src/cli/early-frame.js"
import { invisibleInline } from "../../src/domain/visible-text.js"

/** A terminal's stdin and stdout as the frame sees them: what it wrote, its raw mode, what it put back. */
const fakeTerminal = (options: { readonly columns?: number; readonly rows?: number; readonly tty?: boolean } = {}) => {
  const written: Array<string> = []
  const unshifted: Array<Buffer> = []
  const events = new EventEmitter()
  const state = { raw: false, paused: true }
  const stdin = {
    isTTY: options.tty ?? true,
    setRawMode: (raw: boolean) => {
      state.raw = raw
    },
    on: (event: "data", listener: (data: Buffer | string) => void) => events.on(event, listener),
    removeListener: (event: "data", listener: (data: Buffer | string) => void) => events.removeListener(event, listener),
    pause: () => {
      state.paused = true
    },
    resume: () => {
      state.paused = false
    },
    unshift: (chunk: Buffer) => {
      unshifted.push(chunk)
    }
  }
  const stdout = { isTTY: options.tty ?? true, columns: options.columns ?? 80, rows: options.rows ?? 24, write: (text: string) => written.push(text) }
  return { stdin, stdout, written, unshifted, state, type: (text: string) => events.emit("data", Buffer.from(text)) }
}

const draw = (terminal: ReturnType<typeof fakeTerminal>, extra: { readonly env?: NodeJS.ProcessEnv; readonly cwd?: string; readonly interrupt?: () => void } = {}) =>
  drawEarlyFrame({ version: "1.2.3", cwd: extra.cwd ?? "/work/project", stdin: terminal.stdin, stdout: terminal.stdout, env: extra.env ?? {}, interrupt: extra.interrupt ?? (() => undefined) })

// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-9;?]*[A-Za-z]/g
const visible = (text: string) => text.replace(ESCAPES, "")

describe("the launcher's early frame of the interactive session", () => {
  it("shows the workspace's path without a control, format or separator character, cut to the terminal's width", () => {
    expect(printable("/tmp/a\x1b]0;owned\x07b\u202ec\u200bd\ne\x9bf")).toBe("/tmp/a]0;ownedbcdef")
    expect(fitColumns("abcdef", 6)).toBe("abcdef")
    expect(fitColumns("abcdefg", 6)).toBe("abcde…")
    // A character past ASCII counts as two columns: the cut errs on the narrow side.
    expect(fitColumns("日本語のパス", 7)).toBe("日本語…")
    const lines = frameLines({ version: "1.2.3", cwd: `/very/${"long/".repeat(40)}path\x1b[2J`, columns: 60, color: true })
    for (const line of lines) expect([...visible(line)].length).toBeLessThanOrEqual(60)
    expect(lines.join("\n")).not.toContain("\x1b[2J")
    expect(visible(lines[0] ?? "")).toMatch(/^custom-agent 1\.2\.3 · \/very\/long\//)
  })

  it("drops every character the project's sanitizer shows by name (variation selectors, the Braille blank, every default-ignorable one): a path cannot read as another", () => {
    const invisible: Array<string> = []
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue
      const char = String.fromCodePoint(code)
      invisibleInline.lastIndex = 0
      if (invisibleInline.test(char)) invisible.push(char)
    }
    expect(invisible.length).toBeGreaterThan(1000)
    expect(invisible.filter((char) => printable(`a${char}b`) !== "ab").map((char) => char.codePointAt(0))).toEqual([])
    expect(printable("./build\ufe0f.sh \u2800x")).toBe("./build.sh x")
  })

  it("without colour (NO_COLOR) it writes no style, only its own frame, cursor and paste-mode codes", () => {
    const terminal = fakeTerminal()
    draw(terminal, { env: { NO_COLOR: "1" } })
    const frame = terminal.written.join("")
    expect(frame.replace(/\x1b\[\?(2026|25|2004)[hl]/g, "")).not.toContain("\x1b")
    expect(frame).toContain("custom-agent 1.2.3 · /work/project")
    expect(frame).toContain("starting…")
  })

  it("turns bracketed paste on with the frame (a paste comes as one) and off again when the frame is dismissed", () => {
    const terminal = fakeTerminal()
    const frame = draw(terminal)
    expect(terminal.written.join("")).toContain("\x1b[?2004h")
    frame?.dismiss()
    expect(terminal.written.at(-1)).toContain("\x1b[?2004l")
  })

  it("draws nothing where the session would not draw: stdin or stdout not a terminal, a terminal too small", () => {
    expect(draw(fakeTerminal({ tty: false }))).toBeUndefined()
    expect(draw(fakeTerminal({ rows: 5 }))).toBeUndefined()
    const none = fakeTerminal({ tty: false })
    draw(none)
    expect(none.written).toEqual([])
  })

  it("keeps the keys typed while it is up and puts them back on stdin for the session, the frame erased in a block the session's frame closes", () => {
    const terminal = fakeTerminal()
    const frame = draw(terminal)
    expect(terminal.state).toEqual({ raw: true, paused: false })
    terminal.type("hello ")
    terminal.type("world\r")
    frame?.handOver()
    expect(terminal.state).toEqual({ raw: false, paused: true })
    expect(Buffer.concat(terminal.unshifted).toString()).toBe("hello world\r")
    const last = terminal.written.at(-1) ?? ""
    // Opened, not closed: the session's first frame ends it.
    expect(last.startsWith("\x1b[?2026h")).toBe(true)
    expect(last).not.toContain("\x1b[?2026l")
    expect(last).toContain("\x1b[5A\x1b[J")
  })

  it("other output first (a usage error, the trust question) erases it and gives the terminal back; the keys typed still go to the session", () => {
    const terminal = fakeTerminal()
    const frame = draw(terminal)
    terminal.type("early")
    frame?.dismiss()
    expect(terminal.state).toEqual({ raw: false, paused: true })
    const erased = terminal.written.length
    expect(terminal.written.at(-1)).toContain("\x1b[5A\x1b[J")
    // Keys typed after it went are the terminal's (a question's answer), not kept.
    terminal.type("y\r")
    frame?.dismiss()
    frame?.handOver()
    expect(terminal.written.length).toBe(erased)
    expect(Buffer.concat(terminal.unshifted).toString()).toBe("early")
  })

  it("a terminal narrowed meanwhile rewraps its full-width lines: the erase goes up as many more rows", () => {
    const terminal = fakeTerminal({ columns: 80 })
    const frame = draw(terminal)
    terminal.stdout.columns = 40
    frame?.handOver()
    // Header, editor, status and the empty last line one row each; each border two.
    expect(terminal.written.at(-1)).toContain("\x1b[7A\x1b[J")
  })

  it("Ctrl-C while it is up erases it and interrupts the process, as on a plain terminal", () => {
    const terminal = fakeTerminal()
    let interrupted = 0
    draw(terminal, { interrupt: () => interrupted++ })
    terminal.type("ab\x03")
    expect(interrupted).toBe(1)
    expect(terminal.state.raw).toBe(false)
    expect(terminal.written.at(-1)).toContain("\x1b[J")
  })

  it("a Ctrl-C byte inside a paste is pasted text, not an interrupt (the markers followed across chunks)", () => {
    const terminal = fakeTerminal()
    let interrupted = 0
    draw(terminal, { interrupt: () => interrupted++ })
    terminal.type("\x1b[200~a\x03")
    terminal.type("b\x1b[201~")
    expect(interrupted).toBe(0)
    terminal.type("\x03")
    expect(interrupted).toBe(1)
  })
})
