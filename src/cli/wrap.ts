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
  options: { readonly width: number; readonly maxTerm: number; readonly indent: number; readonly term?: (text: string) => string }
): string => {
  const termWidth = Math.min(options.maxTerm, Math.max(0, ...rows.map(([term]) => term.length)))
  const column = options.indent + termWidth + 2
  const pad = " ".repeat(column)
  const style = options.term ?? ((text: string) => text)
  return rows
    .map(([term, description]) => {
      const lines = wrap(description, Math.max(20, options.width - column))
      const head = " ".repeat(options.indent) + style(term)
      if (lines.length === 0) return `${head}\n`
      if (term.length > termWidth) return `${head}\n${lines.map((line) => pad + line).join("\n")}\n`
      const [first, ...rest] = lines
      return `${head}${" ".repeat(termWidth - term.length + 2)}${first}\n${rest.map((line) => `${pad}${line}\n`).join("")}`
    })
    .join("")
}
