import { getCapabilities, Markdown, setCapabilities } from "@mariozechner/pi-tui"
import { fromStyled, sanitize, type TerminalText } from "../terminal-text.js"
import { markdownTheme } from "./markdown-theme.js"

/**
 * pi-tui writes a link as an OSC 8 hyperlink on terminals it knows support them: an escape
 * whose target the text need not show. A person judges a link by where it goes, so the target
 * is always written out (`text (url)`) and no escape but a colour is written.
 */
const withoutHyperlinks = <A>(render: () => A): A => {
  const capabilities = getCapabilities()
  if (!capabilities.hyperlinks) return render()
  setCapabilities({ ...capabilities, hyperlinks: false })
  try {
    return render()
  } finally {
    setCapabilities(capabilities)
  }
}

/**
 * Markdown (a model's answer) as terminal lines of at most `width` columns: headings, emphasis,
 * lists, tables, block quotes, links, code blocks highlighted (pi-tui's renderer with this
 * project's theme). The text is sanitized before it is parsed, so its controls show as `^[`,
 * `<U+202E>`; the lines keep only the theme's colours (`fromStyled`), none when colour is off.
 * Lines carry no padding at their end.
 */
export const renderMarkdown = (text: string, width: number, color: boolean): ReadonlyArray<TerminalText> => {
  const safe = sanitize(text).text
  const lines = withoutHyperlinks(() => new Markdown(safe, 0, 0, markdownTheme(color)).render(Math.max(1, width)))
  // pi-tui pads every line to the width with spaces: a terminal line needs none. A line that
  // wrapped inside a style leaves it open: each line ends every style, so none reaches what follows.
  return lines.map((line) => {
    const bare = line.replace(/ +$/, "")
    return fromStyled(color && bare.includes("\x1b[") ? `${bare}\x1b[0m` : bare, color)
  })
}
