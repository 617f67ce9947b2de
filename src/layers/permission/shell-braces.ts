/**
 * Brace expansion as bash does it before anything else: `t{o,}uch` is the two words `touch`
 * and `tuch`, `{a..c}` is `a b c`, `x{1..3}` is `x1 x2 x3`, nested lists included. Only
 * unquoted braces, commas and `..` count. Bounded: past `limit` words the expansion stops
 * and says so, keeping the words before the cut exactly as bash orders them.
 */

/** A character of a word and whether quoting made it literal; `unknown` stands for a part only known at run time (`$x`). */
export interface Piece {
  readonly text: string
  readonly quoted: boolean
  readonly unknown?: true
}

export interface BraceExpansion {
  /** The words in bash's order (at most `limit` of them). */
  readonly words: ReadonlyArray<ReadonlyArray<Piece>>
  /** False when more words would follow the ones given. */
  readonly complete: boolean
  /** Whether any brace expression was expanded (a word that was one is dropped when empty). */
  readonly expanded: boolean
}

const isPlain = (piece: Piece | undefined, c: string) => piece !== undefined && piece.unknown !== true && !piece.quoted && piece.text === c

interface Brace {
  readonly open: number
  readonly close: number
  /** What stands in for the braces, each to be expanded in turn. */
  readonly alternatives: ReadonlyArray<ReadonlyArray<Piece>>
}

/** The index of the `}` that closes the `{` at `open`, nested braces skipped. */
const closing = (pieces: ReadonlyArray<Piece>, open: number): number => {
  let depth = 0
  for (let i = open; i < pieces.length; i++) {
    if (isPlain(pieces[i], "{")) depth++
    else if (isPlain(pieces[i], "}") && --depth === 0) return i
  }
  return -1
}

/** The top-level comma-separated parts inside the braces, or undefined when there is no top-level comma. */
const commaList = (inner: ReadonlyArray<Piece>): ReadonlyArray<ReadonlyArray<Piece>> | undefined => {
  const parts: Array<Array<Piece>> = [[]]
  let depth = 0
  for (const piece of inner) {
    if (isPlain(piece, "{")) depth++
    else if (isPlain(piece, "}")) depth--
    if (depth === 0 && isPlain(piece, ",")) parts.push([])
    else parts[parts.length - 1]?.push(piece)
  }
  return parts.length > 1 ? parts : undefined
}

const INTEGER = /^[+-]?\d+$/
const LETTER = /^[A-Za-z]$/

const literal = (text: string): ReadonlyArray<Piece> => [...text].map((c) => ({ text: c, quoted: false }))

/** `{x..y}` or `{x..y..step}` with integers or single letters, as at most `limit` words; undefined when not a sequence. */
const sequence = (inner: ReadonlyArray<Piece>, limit: number): ReadonlyArray<ReadonlyArray<Piece>> | undefined => {
  if (inner.some((p) => p.quoted || p.unknown === true)) return undefined
  const parts = inner.map((p) => p.text).join("").split("..")
  const [from, to, stepText] = parts
  if (from === undefined || to === undefined || parts.length > 3) return undefined
  if (stepText !== undefined && !INTEGER.test(stepText)) return undefined
  const step = Math.max(1, Math.abs(Number.parseInt(stepText ?? "1", 10)))
  const numbers = INTEGER.test(from) && INTEGER.test(to)
  if (!numbers && !(LETTER.test(from) && LETTER.test(to))) return undefined
  const start = numbers ? Number.parseInt(from, 10) : from.charCodeAt(0)
  const end = numbers ? Number.parseInt(to, 10) : to.charCodeAt(0)
  // `{01..10}` pads every number to the wider of the two.
  const width = numbers && [from, to].some((s) => /^[+-]?0\d/.test(s)) ? Math.max(from.length, to.length) : 0
  const direction = end >= start ? 1 : -1
  const words: Array<ReadonlyArray<Piece>> = []
  for (let n = start; direction > 0 ? n <= end : n >= end; n += direction * step) {
    if (words.length >= limit) break
    const text = numbers ? (n < 0 ? `-${String(-n).padStart(width - 1, "0")}` : String(n).padStart(width, "0")) : String.fromCharCode(n)
    words.push(literal(text))
  }
  return words
}

/** The first brace expression bash expands in this word, if any. */
const firstBrace = (pieces: ReadonlyArray<Piece>, limit: number): Brace | undefined => {
  for (let open = 0; open < pieces.length; open++) {
    if (!isPlain(pieces[open], "{")) continue
    const close = closing(pieces, open)
    // An unclosed brace is literal; one after it may still expand (`a{b{c,d}` is `a{bc a{bd`).
    if (close === -1) continue
    const inner = pieces.slice(open + 1, close)
    const alternatives = commaList(inner) ?? sequence(inner, limit + 1)
    // Not an expansion (`{}`, `{a}`): the brace is literal, and one inside it may still expand.
    if (alternatives !== undefined) return { open, close, alternatives }
  }
  return undefined
}

const expand = (pieces: ReadonlyArray<Piece>, limit: number): { words: Array<ReadonlyArray<Piece>>; complete: boolean; expanded: boolean } => {
  const brace = firstBrace(pieces, limit)
  if (brace === undefined) return { words: [pieces], complete: true, expanded: false }
  const before = pieces.slice(0, brace.open)
  const after = expand(pieces.slice(brace.close + 1), limit)
  const words: Array<ReadonlyArray<Piece>> = []
  let complete = after.complete
  for (const alternative of brace.alternatives) {
    const inner = expand(alternative, limit)
    complete &&= inner.complete
    for (const middle of inner.words) {
      for (const end of after.words) {
        if (words.length >= limit) return { words, complete: false, expanded: true }
        words.push([...before, ...middle, ...end])
      }
    }
  }
  return { words, complete, expanded: true }
}

/** The words this word becomes by brace expansion, at most `limit` of them. */
export const expandBraces = (pieces: ReadonlyArray<Piece>, limit: number): BraceExpansion => {
  const { words, complete, expanded } = expand(pieces, limit)
  // An unquoted word that expands to nothing (`{,}`) is dropped, as bash drops it.
  return { words: expanded ? words.filter((w) => w.length > 0) : words, complete, expanded }
}
