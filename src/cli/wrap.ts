import { joinText, type Printable, type TerminalText, term } from "./terminal-text.js"

/** `text` broken into lines of at most `width` characters at spaces (a longer word keeps its own line). */
export const wrap = (text: string, width: number): ReadonlyArray<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line === "") line = word
    else if (line.length + 1 + word.length <= width) line += ` ${word}`
    else {
      lines.push(line)
      line = word
    }
  }
  if (line !== "") lines.push(line)
  return lines
}

/**
 * Terms and their descriptions in two columns: the descriptions start at one column, wrapped
 * to `width`; a term wider than `maxTerm` has its description start on the next line.
 */
export const twoColumns = (
  rows: ReadonlyArray<readonly [string, string]>,
  options: { readonly width: number; readonly maxTerm: number; readonly indent: number; readonly term?: (text: string) => Printable }
): TerminalText => {
  const termWidth = Math.min(options.maxTerm, Math.max(0, ...rows.map(([term]) => term.length)))
  const column = options.indent + termWidth + 2
  const pad = " ".repeat(column)
  const style = options.term ?? ((text: string): Printable => text)
  return joinText(
    rows.map(([name, description]) => {
      const lines = wrap(description, Math.max(20, options.width - column))
      const head = term`${" ".repeat(options.indent)}${style(name)}`
      if (lines.length === 0) return term`${head}\n`
      if (name.length > termWidth) return term`${head}\n${lines.map((line) => pad + line).join("\n")}\n`
      const [first, ...rest] = lines
      return term`${head}${" ".repeat(termWidth - name.length + 2)}${first ?? ""}\n${rest.map((line) => `${pad}${line}\n`).join("")}`
    })
  )
}
