import { Lexer } from "marked"
import { sanitize, type TerminalText } from "../terminal-text.js"
import { renderMarkdown } from "./markdown.js"

export interface MarkdownStreamOptions {
  readonly color: boolean
  /** The terminal's width when a block is printed. */
  readonly width: () => number
}

/**
 * Where the text's complete blocks end: after the last blank line (a `space` token) that another
 * block follows. A block is complete once the next one has begun: a list or a paragraph may go
 * on after a blank line until then, and an open code fence holds no `space` token at all. Cut
 * there, the text before renders as it does inside the whole answer. 0 when no block is
 * complete yet.
 */
export const completeBlocks = (text: string): number => {
  const tokens = Lexer.lex(text)
  let end = 0
  let at = 0
  for (const [i, token] of tokens.entries()) {
    at += token.raw.length
    if (token.type === "space" && i < tokens.length - 1) end = at
  }
  // Only a cut the tokens' own text agrees with: the lexer may normalize what it reads, and a cut must never guess.
  return tokens.map((token) => token.raw).join("").slice(0, end) === text.slice(0, end) ? end : 0
}

/**
 * A streamed answer printed block by block as Markdown: `push` takes each piece of text and
 * gives the lines of the blocks it completed, `flush` the lines of the rest (the turn's step
 * ended, or another line is about to be printed). Nothing printed is ever redrawn. Blank lines
 * come only between blocks: none before the first line, none held at the end.
 */
export const makeMarkdownStream = (options: MarkdownStreamOptions) => {
  /** Text of blocks not printed yet, sanitized (so the lexer sees what the renderer will: a CR is `^M`). */
  let pending = ""
  let printed = false
  /** Blank lines after the last printed one: printed when a line follows them. */
  let held: Array<TerminalText> = []

  /**
   * The lines of the complete blocks `done`, as they render before `rest`: how pi-tui spaces a
   * block depends on the block after it, so the two render together and the lines `rest` takes
   * on its own are left off (a block renders the same wherever it starts).
   */
  const lines = (done: string, rest = ""): Array<TerminalText> => {
    const width = options.width()
    const all = renderMarkdown(done + rest, width, options.color)
    const kept = rest === "" ? all : all.slice(0, all.length - renderMarkdown(rest, width, options.color).length)
    const out: Array<TerminalText> = []
    for (const line of kept) {
      if (line.text === "") {
        held.push(line)
        continue
      }
      if (printed) out.push(...held)
      held = []
      printed = true
      out.push(line)
    }
    return out
  }

  const push = (piece: string): ReadonlyArray<TerminalText> => {
    // A pair of surrogates split between pieces is sanitized again whole, when its block renders.
    pending += sanitize(piece).text
    const end = completeBlocks(pending)
    if (end === 0) return []
    const done = pending.slice(0, end)
    pending = pending.slice(end)
    return lines(done, pending)
  }

  const flush = (): ReadonlyArray<TerminalText> => {
    const rest = pending
    pending = ""
    const out = rest.trim() === "" ? [] : lines(rest)
    printed = false
    held = []
    return out
  }

  return { push, flush }
}
