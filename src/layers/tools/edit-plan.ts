/** The outcome of applying an exact-string edit to a file's text, before anything is written. */
export type EditPlan =
  | { readonly _tag: "ok"; readonly after: string; readonly replacements: number }
  | { readonly _tag: "problem"; readonly message: string }

export interface EditRequest {
  readonly old_string: string
  readonly new_string: string
  readonly replace_all?: boolean
}

/**
 * Replaces `old_string` exactly: once when it occurs once, everywhere with `replace_all`.
 * A file with CRLF line endings also matches an `old_string` written with `\n`.
 */
export const planEdit = (content: string, request: EditRequest, name: string): EditPlan => {
  let search = request.old_string
  let replacement = request.new_string
  let positions = occurrences(content, search)
  if (positions.length === 0 && content.includes("\r\n") && search.includes("\n") && !search.includes("\r\n")) {
    search = toCrlf(search)
    replacement = toCrlf(replacement)
    positions = occurrences(content, search)
  }
  if (positions.length === 0) return { _tag: "problem", message: notFound(content, request.old_string, name) }
  if (positions.length > 1 && request.replace_all !== true) {
    const lines = positions.slice(0, 10).map((at) => lineAt(content, at))
    const more = positions.length > lines.length ? ", ..." : ""
    return {
      _tag: "problem",
      message:
        `old_string occurs ${positions.length} times in ${name} (at lines ${lines.join(", ")}${more}). ` +
        "Include more surrounding lines in old_string so it matches exactly one place, or set replace_all to true to replace every occurrence."
    }
  }
  // split/join, not String.replace: `$&` and friends in new_string must stay literal.
  const after = request.replace_all === true ? content.split(search).join(replacement) : spliceAt(content, positions[0] ?? 0, search, replacement)
  return { _tag: "ok", after, replacements: request.replace_all === true ? positions.length : 1 }
}

const occurrences = (content: string, search: string): Array<number> => {
  const found: Array<number> = []
  for (let at = content.indexOf(search); at !== -1; at = content.indexOf(search, at + search.length)) found.push(at)
  return found
}

const spliceAt = (content: string, at: number, search: string, replacement: string): string =>
  content.slice(0, at) + replacement + content.slice(at + search.length)

const toCrlf = (text: string): string => text.replace(/\r?\n/g, "\r\n")

const lineAt = (content: string, index: number): number => {
  let line = 1
  for (let i = content.indexOf("\n"); i !== -1 && i < index; i = content.indexOf("\n", i + 1)) line++
  return line
}

/** Says the match failed and points at the likeliest intended place, so the next attempt can succeed. */
const notFound = (content: string, oldString: string, name: string): string => {
  const base = `old_string was not found in ${name}; it must match the file exactly, including whitespace and indentation.`
  if (collapseWhitespace(content).includes(collapseWhitespace(oldString))) {
    return `${base} It does match if whitespace is ignored: re-read the file and copy the text exactly.`
  }
  const closest = closestLine(content, oldString)
  return closest === undefined ? base : `${base} The closest line is ${closest.line}: ${JSON.stringify(closest.text)}`
}

const collapseWhitespace = (text: string): string => text.replace(/\s+/g, " ").trim()

/** Scanning stops here: the hint is a courtesy and must stay cheap on huge files. */
const MAX_HINT_LINES = 20_000

/** The file line most like the first non-blank line of `oldString` (character-bigram similarity), if any is close. */
const closestLine = (content: string, oldString: string): { line: number; text: string } | undefined => {
  const wanted = oldString.split("\n").map((l) => l.trim()).find((l) => l !== "")
  if (wanted === undefined) return undefined
  const wantedBigrams = bigrams(wanted)
  let best: { line: number; text: string; score: number } | undefined
  const lines = content.split("\n", MAX_HINT_LINES)
  for (const [i, text] of lines.entries()) {
    const score = dice(wantedBigrams, bigrams(text.trim()))
    if (best === undefined || score > best.score) best = { line: i + 1, text: text.replace(/\r$/, ""), score }
  }
  return best !== undefined && best.score >= 0.5 ? { line: best.line, text: best.text } : undefined
}

const bigrams = (text: string): Map<string, number> => {
  const counts = new Map<string, number>()
  for (let i = 0; i < text.length - 1; i++) {
    const pair = text.slice(i, i + 2)
    counts.set(pair, (counts.get(pair) ?? 0) + 1)
  }
  return counts
}

/** Sørensen–Dice coefficient of two bigram multisets: 1 for equal strings, 0 for nothing shared. */
const dice = (a: Map<string, number>, b: Map<string, number>): number => {
  let sizeA = 0
  let sizeB = 0
  let shared = 0
  for (const n of a.values()) sizeA += n
  for (const n of b.values()) sizeB += n
  if (sizeA + sizeB === 0) return 0
  for (const [pair, n] of a) shared += Math.min(n, b.get(pair) ?? 0)
  return (2 * shared) / (sizeA + sizeB)
}
