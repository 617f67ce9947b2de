import type { Node } from "web-tree-sitter"
import { expandBraces, type Piece } from "./shell-braces.js"

/**
 * What bash makes of one word before running a command: quote removal, backslash escapes,
 * ANSI-C `$'...'` decoding and `~` expansion, done statically. A word whose value depends on
 * the run time (a parameter or arithmetic expansion, a command substitution, a glob, a brace
 * expansion, `~user`) has no static value. A brace expansion makes several words
 * (`wordValues`), each static or not.
 */

/** A part only known at run time: it may hold anything, so the words it ends up in are not static. */
const UNKNOWN: ReadonlyArray<Piece> = [{ text: "", quoted: false, unknown: true }]

/** `''` and `""` are an empty word, not nothing: a zero-width quoted piece keeps them. */
const EMPTY_QUOTE: ReadonlyArray<Piece> = [{ text: "", quoted: true }]

const unquotedWord = (source: string): Array<Piece> | undefined => {
  const pieces: Array<Piece> = []
  for (let i = 0; i < source.length; i++) {
    const c = source[i] ?? ""
    if (c === "\\") {
      const next = source[i + 1]
      i++
      // A backslash-newline joins lines; a backslash at the very end stays.
      if (next === undefined) pieces.push({ text: "\\", quoted: true })
      else if (next !== "\n") pieces.push({ text: next, quoted: true })
      continue
    }
    // Anything that expands or splits here means the grammar handed us more than a plain word.
    if (c === "`" || /\s/.test(c) || (c === "$" && i + 1 < source.length)) return undefined
    pieces.push({ text: c, quoted: false })
  }
  return pieces
}

/** The inside of a double-quoted string without expansions: `\` escapes only `$`, `` ` ``, `"`, `\` and newline. */
const doubleQuoted = (inner: string): Array<Piece> | undefined => {
  const pieces: Array<Piece> = []
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] ?? ""
    const next = inner[i + 1]
    if (c === "\\" && next !== undefined && "$`\"\\\n".includes(next)) {
      if (next !== "\n") pieces.push({ text: next, quoted: true })
      i++
      continue
    }
    if (c === "`" || (c === "$" && next !== undefined && /[A-Za-z0-9_{(@*#?$!-]/.test(next))) return undefined
    pieces.push({ text: c, quoted: true })
  }
  return pieces
}

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?"
}

const digitsAt = (s: string, from: number, max: number, digit: RegExp) => {
  let end = from
  while (end < s.length && end - from < max && digit.test(s[end] ?? "")) end++
  return s.slice(from, end)
}

/** Decodes the inside of `$'...'` as bash does; a NUL ends the string, as it does in bash. */
export const decodeAnsiC = (inner: string): string => {
  let out = ""
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i] ?? ""
    if (c !== "\\" || i + 1 >= inner.length) {
      out += c
      continue
    }
    const e = inner[i + 1] ?? ""
    let code: number | undefined
    let used = 1
    const simple = SIMPLE_ESCAPES[e]
    if (simple !== undefined) {
      out += simple
      i += 1
      continue
    }
    if (/[0-7]/.test(e)) {
      const octal = digitsAt(inner, i + 1, 3, /[0-7]/)
      code = Number.parseInt(octal, 8) & 0xff
      used = octal.length
    } else if (e === "x" || e === "u" || e === "U") {
      const hex = digitsAt(inner, i + 2, e === "x" ? 2 : e === "u" ? 4 : 8, /[0-9a-fA-F]/)
      if (hex.length > 0) {
        code = Number.parseInt(hex, 16)
        used = 1 + hex.length
      }
    } else if (e === "c" && i + 2 < inner.length) {
      const ch = inner[i + 2] ?? ""
      code = ch === "?" ? 0x7f : ch.toUpperCase().charCodeAt(0) & 0x1f
      used = 2
    }
    if (code === undefined || code > 0x10ffff) {
      // Not an escape bash knows: the backslash stays.
      out += c
      continue
    }
    if (code === 0) return out
    out += String.fromCodePoint(code)
    i += used
  }
  return out
}

const isNamedChildrenOnly = (node: Node, allowed: ReadonlyArray<string>) =>
  node.namedChildren.every((child) => child !== null && allowed.includes(child.type))

/** One part of a word as pieces; a part only known at run time is one unknown piece. */
const piecesOf = (node: Node): ReadonlyArray<Piece> => {
  switch (node.type) {
    case "word":
      return unquotedWord(node.text) ?? UNKNOWN
    case "number":
      return node.namedChildCount === 0 ? (unquotedWord(node.text) ?? UNKNOWN) : UNKNOWN
    case "brace_expression":
      // `{1..3}`: its text as written, expanded later like any other brace.
      return unquotedLiteral(node.text)
    case "raw_string":
      return node.text.length <= 2 ? EMPTY_QUOTE : [...node.text.slice(1, -1)].map((text) => ({ text, quoted: true }))
    case "ansi_c_string": {
      const decoded = decodeAnsiC(node.text.slice(2, -1))
      return decoded.length === 0 ? EMPTY_QUOTE : [...decoded].map((text) => ({ text, quoted: true }))
    }
    case "string": {
      if (!isNamedChildrenOnly(node, ["string_content"])) return UNKNOWN
      const inner = doubleQuoted(node.text.slice(1, -1))
      return inner === undefined ? UNKNOWN : inner.length === 0 ? EMPTY_QUOTE : inner
    }
    case "translated_string": {
      const inner = node.namedChild(0)
      return inner === null ? EMPTY_QUOTE : piecesOf(inner)
    }
    case "concatenation":
      return piecesOfParts(node.children.filter((child) => child !== null))
    default:
      // Anonymous tokens the grammar leaves in words (`$`, `==`, `=~`) are literal text.
      return node.isNamed ? UNKNOWN : unquotedLiteral(node.text)
  }
}

const unquotedLiteral = (text: string): Array<Piece> => [...text].map((c) => ({ text: c, quoted: false }))

/** The pieces of adjacent parts; a `$` right before a double-quoted string makes it `$"..."`, which drops the `$`. */
const piecesOfParts = (parts: ReadonlyArray<Node>): Array<Piece> => {
  const pieces: Array<Piece> = []
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]
    if (part === undefined) continue
    const next = parts[i + 1]
    if (part.type === "$" && next !== undefined && next.type === "string" && next.startIndex === part.endIndex) continue
    pieces.push(...piecesOf(part))
  }
  return pieces
}

const unquotedAt = (pieces: ReadonlyArray<Piece>, i: number, c: string) => {
  const piece = pieces[i]
  return piece !== undefined && !piece.quoted && piece.text === c
}

/** A glob (`*`, `?`, `[...]`) or a brace expansion (`{a,b}`, `{1..3}`) among the unquoted characters. */
const expandsFurther = (pieces: ReadonlyArray<Piece>): boolean => {
  for (let i = 0; i < pieces.length; i++) {
    if (unquotedAt(pieces, i, "*") || unquotedAt(pieces, i, "?")) return true
    if (unquotedAt(pieces, i, "[") && pieces.slice(i + 1).some((p) => p.text === "]")) return true
    if (unquotedAt(pieces, i, "{")) {
      const close = pieces.findIndex((_, j) => j > i && unquotedAt(pieces, j, "}"))
      const between = pieces
        .slice(i + 1, close)
        .map((p) => p.text)
        .join("")
      if (close > i && (between.includes(",") || between.includes(".."))) return true
    }
  }
  return false
}

/** `~` or `~/...` at the start of a word becomes the home directory; `~user`, `~+` and the like are left to the run time. */
const expandTilde = (pieces: ReadonlyArray<Piece>, home: string | undefined): string | undefined => {
  const text = pieces.map((p) => p.text).join("")
  if (!unquotedAt(pieces, 0, "~")) return text
  if (pieces.length > 1 && !unquotedAt(pieces, 1, "/")) return undefined
  return home === undefined ? undefined : home + text.slice(1)
}

const staticValue = (pieces: ReadonlyArray<Piece>, home: string | undefined): string | undefined =>
  pieces.some((p) => p.unknown === true) || expandsFurther(pieces) ? undefined : expandTilde(pieces, home)

/** The static value of a word made of these adjacent nodes, or undefined (a brace expansion too: where one word must stand). */
export const wordValue = (parts: ReadonlyArray<Node>, home: string | undefined): string | undefined => staticValue(piecesOfParts(parts), home)

/** The words bash makes of one word of a command: brace expansion first, then each word's static value (or undefined). */
export interface WordValues {
  readonly values: ReadonlyArray<string | undefined>
  /** False when the expansion was cut at the limit: more words follow that are not given. */
  readonly complete: boolean
}

export const wordValues = (parts: ReadonlyArray<Node>, home: string | undefined, limit: number): WordValues => {
  const { words, complete } = expandBraces(piecesOfParts(parts), limit)
  return { values: words.map((pieces) => staticValue(pieces, home)), complete }
}

/**
 * The static value of an assignment's right-hand side. Tilde expansion after `=` and `:` is
 * left to the run time (an assignment is only ever matched as written by a rule anyway).
 */
export const assignmentValue = (value: Node | null): string | undefined => {
  if (value === null) return ""
  const pieces = piecesOfParts([value])
  if (pieces.some((p) => p.unknown === true || (!p.quoted && p.text === "~"))) return undefined
  // Globs and braces do not expand in an assignment.
  return pieces.map((p) => p.text).join("")
}
