/**
 * Splits a shell command line into its simple commands at `&&`, `||`, `;`, `|`, `&` and
 * newlines outside quotes, so a rule for `npm test` cannot be stretched over
 * `npm test && rm -rf ~`. `substitution` is true when the line runs other commands inside
 * it (`$(...)`, backticks, process substitution): allow rules never match those.
 */
export const splitCommand = (line: string): { readonly parts: ReadonlyArray<string>; readonly substitution: boolean } => {
  const parts: Array<string> = []
  let current = ""
  let quote: "'" | '"' | undefined
  let substitution = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? ""
    const next = line[i + 1] ?? ""
    if (quote !== undefined) {
      if (c === quote) quote = undefined
      else if (quote === '"' && (c === "`" || (c === "$" && next === "("))) substitution = true
      else if (c === "\\" && quote === '"') {
        current += c + next
        i++
        continue
      }
      current += c
      continue
    }
    if (c === "\\") {
      current += c + next
      i++
      continue
    }
    if (c === "'" || c === '"') {
      quote = c
      current += c
      continue
    }
    if (c === "`" || (c === "$" && next === "(") || ((c === "<" || c === ">") && next === "(")) substitution = true
    if (c === ";" || c === "\n" || c === "&" || c === "|") {
      parts.push(current)
      current = ""
      if ((c === "&" || c === "|") && next === c) i++
      continue
    }
    current += c
  }
  parts.push(current)
  return { parts: parts.map(normalize).filter((p) => p.length > 0), substitution }
}

export const normalize = (command: string) => command.replace(/\s+/g, " ").trim()

/** `npm test` matches `npm test` and `npm test -- --watch`, not `npm testing`. */
export const hasWordPrefix = (command: string, prefix: string) => {
  const p = normalize(prefix)
  return command === p || command.startsWith(`${p} `)
}
