import type { MarkdownTheme } from "@mariozechner/pi-tui"
import { highlightCode } from "./highlight.js"

/** An SGR style around a text, closed by the code that ends only that style (so nested styles compose). */
const sgr = (color: boolean, open: string, close: string) => (text: string): string => (color ? `\x1b[${open}m${text}\x1b[${close}m` : text)

/**
 * How the answer's Markdown looks, in `run` and in the interactive session alike. Without colour
 * it is structure alone (no escape at all), a code span keeping its backticks so it still reads
 * as code. The list bullet's colour is pi-tui's cyan on purpose: pi-tui finds a nested list by it.
 */
export const markdownTheme = (color: boolean): MarkdownTheme => {
  const dim = sgr(color, "2", "22")
  return {
    heading: sgr(color, "36", "39"),
    link: sgr(color, "34", "39"),
    linkUrl: dim,
    code: color ? sgr(color, "33", "39") : (text) => `\`${text}\``,
    codeBlock: (text) => text,
    codeBlockBorder: dim,
    quote: (text) => text,
    quoteBorder: dim,
    hr: dim,
    listBullet: sgr(color, "36", "39"),
    bold: sgr(color, "1", "22"),
    italic: sgr(color, "3", "23"),
    strikethrough: sgr(color, "9", "29"),
    underline: sgr(color, "4", "24"),
    highlightCode: (code, language) => highlightCode(code, language, color)
  }
}
