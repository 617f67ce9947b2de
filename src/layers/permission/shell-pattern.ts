/**
 * The `command` field of a permission rule: words separated by spaces, compared with a
 * command's words after quote removal. A word may be quoted to hold spaces (`'a b'`,
 * `"a b"`, `a\ b`). Leading `NAME=value` words are assignments the command must carry. A
 * last word `*` (or a last word ending in `:*`, Claude Code's spelling) allows any further
 * arguments.
 */
export interface CommandPattern {
  readonly assignments: ReadonlyArray<string>
  readonly words: ReadonlyArray<string>
  /** Any further arguments are allowed (`npm test *`). */
  readonly rest: boolean
}

interface Token {
  readonly text: string
  /** Some of it was quoted: `'*'` is a literal star, and `'A=1'` is a word, not an assignment. */
  readonly quoted: boolean
}

const tokenize = (source: string): ReadonlyArray<Token> => {
  const tokens: Array<Token> = []
  let text = ""
  let quoted = false
  let inToken = false
  for (let i = 0; i < source.length; i++) {
    const c = source[i] ?? ""
    if (/\s/.test(c)) {
      if (inToken) tokens.push({ text, quoted })
      text = ""
      quoted = false
      inToken = false
      continue
    }
    inToken = true
    if (c === "\\" && i + 1 < source.length) {
      text += source[++i]
      quoted = true
    } else if (c === "'" || c === '"') {
      const close = source.indexOf(c, i + 1)
      const end = close === -1 ? source.length : close
      const inner = source.slice(i + 1, end)
      text += c === '"' ? inner.replace(/\\(["\\])/g, "$1") : inner
      quoted = true
      i = end
    } else text += c
  }
  if (inToken) tokens.push({ text, quoted })
  return tokens
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/

const cache = new Map<string, CommandPattern>()

export const parsePattern = (source: string): CommandPattern => {
  const cached = cache.get(source)
  if (cached !== undefined) return cached
  const tokens = [...tokenize(source)]
  const assignments: Array<string> = []
  while (tokens.length > 0 && tokens[0] !== undefined && !tokens[0].quoted && ASSIGNMENT.test(tokens[0].text)) {
    assignments.push(tokens[0].text)
    tokens.shift()
  }
  let rest = false
  const last = tokens[tokens.length - 1]
  if (last !== undefined && !last.quoted && last.text === "*") {
    tokens.pop()
    rest = true
  } else if (last !== undefined && !last.quoted && last.text.endsWith(":*")) {
    tokens[tokens.length - 1] = { text: last.text.slice(0, -2), quoted: false }
    rest = true
  }
  const pattern = { assignments, words: tokens.map((t) => t.text), rest }
  cache.set(source, pattern)
  return pattern
}

/** A word as pattern text that reads back as the same word; a first word that looks like an assignment is quoted. */
const quoteWord = (word: string, first: boolean) =>
  /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) && !word.endsWith(":*") && !(first && ASSIGNMENT.test(word)) ? word : `'${word.replace(/'/g, `'"'"'`)}'`

/** Pattern text for a command's argv: exact, or followed by ` *` for any further arguments. */
export const formatPattern = (words: ReadonlyArray<string>, rest: boolean): string =>
  [...words.map((w, i) => quoteWord(w, i === 0)), ...(rest ? ["*"] : [])].join(" ")
