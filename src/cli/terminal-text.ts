import { codePointName, invisibleCharacters, invisibleInline } from "../domain/visible-text.js"

/**
 * Text for a terminal. Whatever content says (a model's answer, a command, a diff, tool output,
 * a file name, a session title), a terminal must show it, never obey it: a carriage return or
 * an escape sequence could overwrite what a person reads before answering, OSC 52 could set the
 * clipboard, a bidi override could reorder a command. So every control and invisible format
 * character is shown in a visible notation, and the only escapes that reach a terminal are the
 * CLI's own colours, added by `paint` around text that was made safe first.
 *
 * By construction: the writers in `io.ts` take a `Printable`; a plain string is sanitized there,
 * and only a `TerminalText` (made here, from sanitized pieces) is written as it is.
 */

/**
 * What is never written raw: C0 controls but newline and tab (ESC, CR, backspace, BEL, ...), DEL,
 * C1 controls (U+0080–U+009F, `\x9b` is a CSI on some terminals), every format character (bidi
 * embeddings, overrides and isolates, LRM/RLM/ALM, zero-width characters, the BOM, the invisible
 * tag characters U+E0000–U+E007F), the line and paragraph separators, every default-ignorable
 * character (variation selectors, the Hangul fillers, ...) and the blank glyphs (the Braille
 * blank). The domain's set (`visible-text.ts`), which the web page shows the same way.
 */
const unsafe = invisibleCharacters
/** The same, and newline and tab too: for text that must stay on one line (a table's cell). */
const unsafeInline = invisibleInline

/** Caret notation for C0 and DEL (`^[` for ESC, `^M` for CR, `^H` for backspace, `^?` for DEL), `<U+XXXX>` for the rest. */
export const visible = (char: string): string => {
  const code = char.codePointAt(0) ?? 0
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`
  if (code === 0x7f) return "^?"
  return codePointName(char)
}

class Text {
  readonly #text: string
  constructor(text: string) {
    this.#text = text
  }
  /** The characters to write: sanitized content and the CLI's own colour codes. */
  get text(): string {
    return this.#text
  }
  /**
   * A `TerminalText` put into a template or joined as a string becomes a plain string again,
   * which the writers sanitize whole: a forgotten `term` shows its colours as `^[[2m`, it never
   * lets anything through.
   */
  toString(): string {
    return this.#text
  }
}

/** Text that may be written to a terminal as it is. Only this module makes one (the class is not exported, its field is private). */
export type TerminalText = Text

/** What the CLI's writers take: a plain string is sanitized when written. */
export type Printable = string | TerminalText

export const isTerminalText = (value: unknown): value is TerminalText => value instanceof Text

/** `text` with every control and invisible format character shown visibly; newlines and tabs kept. */
export const sanitize = (text: string): TerminalText => new Text(text.replace(unsafe, visible))

/** `text` on one line: newlines and tabs shown visibly as well (`^J`, `^I`). */
export const sanitizeInline = (text: string): TerminalText => new Text(text.replace(unsafeInline, visible))

/** A printable made terminal text: a plain string is sanitized, a terminal text kept. */
export const toTerminalText = (value: Printable): TerminalText => (typeof value === "string" ? sanitize(value) : value)

/** The characters to write for a printable. */
export const terminalString = (value: Printable): string => toTerminalText(value).text

/**
 * A template whose pieces are sanitized (literal parts too) and whose terminal texts are kept:
 * `term\`${bold(title)} · ${path}\`` colours the title, and `path` cannot carry an escape.
 */
export const term = (strings: TemplateStringsArray, ...values: ReadonlyArray<Printable | number>): TerminalText => {
  let out = ""
  for (const [i, part] of strings.entries()) {
    out += sanitize(part).text
    const value = values[i]
    if (value !== undefined) out += typeof value === "number" ? String(value) : terminalString(value)
  }
  return new Text(out)
}

/** Printables joined, each made safe on its own. */
export const joinText = (parts: ReadonlyArray<Printable>, separator: Printable = ""): TerminalText =>
  new Text(parts.map(terminalString).join(terminalString(separator)))

/** The CLI's styles: bold, dim, red, green, yellow, cyan (SGR codes). */
export type Style = "1" | "2" | "31" | "32" | "33" | "36"

/**
 * An ANSI colour (SGR `code`) around a text, when colour is on: the text is made safe first, so
 * the only escapes in the result are this colour's.
 */
export const paint = (on: boolean, code: Style) => (text: Printable): TerminalText => {
  const safe = terminalString(text)
  return new Text(on ? `\x1b[${code}m${safe}\x1b[0m` : safe)
}

/** An SGR sequence (a colour or a text style): the only escape `fromStyled` keeps. */
const sgr = /\x1b\[[0-9;]*m/g

/**
 * The output of a renderer (pi-tui's Markdown, the code highlighter, `view/`) over content that
 * was sanitized before it was rendered: its SGR sequences kept when colour is on (dropped when
 * off), and any other control or invisible format character in it shown visibly. Content cannot
 * bring an SGR of its own (its ESC was shown as `^[` first), so what is kept are the renderer's
 * styles; and whatever the renderer made of the content (a decoded entity, a hyperlink's
 * escape), nothing but a style reaches the terminal.
 */
export const fromStyled = (rendered: string, color: boolean): TerminalText => {
  let out = ""
  let at = 0
  for (const match of rendered.matchAll(sgr)) {
    out += rendered.slice(at, match.index).replace(unsafe, visible)
    if (color) out += match[0]
    at = match.index + match[0].length
  }
  return new Text(out + rendered.slice(at).replace(unsafe, visible))
}

/** Takes the cursor to the line's start and erases the line: for a line that is redrawn in place (the progress indicator). */
export const eraseLine: TerminalText = new Text("\r\x1b[2K")

/**
 * Erases the `rows` lines the cursor is on the last of and leaves it at the start of the first:
 * for lines drawn in place (the progress indicator and a running command's last lines), each
 * narrower than the terminal, so none wrapped.
 */
export const eraseRows = (rows: number): TerminalText => new Text(`\r\x1b[2K${"\x1b[1A\x1b[2K".repeat(Math.max(0, rows - 1))}`)

/**
 * Dims a terminal text that may carry colours of its own: dimming starts again after each of its
 * resets (the only escapes it can hold are `paint`'s, so its resets are exactly those).
 */
export const dimAll = (on: boolean, value: Printable): TerminalText => {
  const safe = terminalString(value)
  if (!on || safe.length === 0) return new Text(safe)
  return new Text(`\x1b[2m${safe.split("\x1b[0m").join("\x1b[0m\x1b[2m")}\x1b[0m`)
}

/** Each line of a printable after `prefix` (a last newline dropped): splitting safe text at its newlines keeps every piece safe. */
export const indentLines = (value: Printable, prefix: Printable): TerminalText => {
  const before = terminalString(prefix)
  return new Text(
    terminalString(value)
      .replace(/\n$/, "")
      .split("\n")
      .map((line) => before + line)
      .join("\n")
  )
}

const jsonEscape = (char: string): string =>
  Array.from({ length: char.length }, (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`).join("")

/**
 * JSON for a terminal (`--json`, exports): the same value, with each unsafe character inside a
 * string written as a `\uXXXX` escape, so a program reads what was stored and a terminal
 * showing it interprets nothing. `json` must be `JSON.stringify`'s output: its raw newlines
 * and tabs are layout, never inside a string.
 */
export const jsonText = (json: string): TerminalText => new Text(json.replace(unsafe, jsonEscape))

/**
 * A whole screen drawn in place (`custom-agent sessions`' live view): from the top left, each
 * line erased to its end after its text, and what is below the last erased. `lines` are
 * terminal texts, each narrower than the terminal, so none wraps and nothing scrolls.
 */
export const screenFrame = (lines: ReadonlyArray<TerminalText>): TerminalText =>
  new Text(`\x1b[H${lines.map((line) => `${line.text}\x1b[K`).join("\r\n")}\x1b[J`)

/** The alternate screen with the cursor hidden, and back: a live view leaves the scrollback as it found it. */
export const alternateScreen = { enter: new Text("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"), leave: new Text("\x1b[?25h\x1b[?1049l") }

/**
 * A terminal's notification: OSC 9 (shown as a desktop notice by the terminals that know it,
 * iTerm2, kitty, WezTerm, Windows Terminal...) carrying `message` on one line with every
 * control shown visibly, so it cannot end the sequence early, then the bell for the rest.
 * A leading digit and `;` would read as another OSC 9 command (ConEmu's progress): the
 * program's name goes first.
 */
export const terminalNotification = (message: string): TerminalText => new Text(`\x1b]9;custom-agent: ${message.replace(unsafeInline, visible)}\x07\x07`)
