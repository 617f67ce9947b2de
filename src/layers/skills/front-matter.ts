import * as ParseResult from "effect/ParseResult"
import * as Either from "effect/Either"

/**
 * A value of the front matter: text, `null` for an empty value, a list of texts (a flow list
 * `[a, b]` or `- a` lines), or `nested` for anything deeper (a map, a list of lists or maps:
 * read past, never interpreted, so a field that wants text or a list refuses it).
 */
export type FrontMatterValue = string | null | ReadonlyArray<string> | { readonly nested: true }

export type FrontMatterSplit =
  | { readonly _tag: "Split"; readonly frontMatter: string; readonly body: string }
  | { readonly _tag: "NoFrontMatter" }
  | { readonly _tag: "Unclosed" }

const DELIMITER = /^---[ \t]*(?:\r?\n|$)/
const DELIMITER_LINE = /^---[ \t]*(?:\r?\n|$)/gm

/**
 * Splits `---` front matter from the body. The first line must be `---` (after an optional
 * BOM); the next line that is exactly `---` closes it.
 */
export const splitFrontMatter = (text: string): FrontMatterSplit => {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text
  const open = DELIMITER.exec(source)
  if (open === null) return { _tag: "NoFrontMatter" }
  const closing = new RegExp(DELIMITER_LINE)
  closing.lastIndex = open[0].length
  const close = closing.exec(source)
  if (close === null) return { _tag: "Unclosed" }
  const frontMatter = source.slice(open[0].length, close.index)
  return { _tag: "Split", frontMatter, body: source.slice(close.index + close[0].length) }
}

const KEY_LINE = /^([A-Za-z0-9_][A-Za-z0-9_.-]*)[ \t]*:(?:[ \t]+(.*))?$/
const NESTED_START = /^(?:-(?:[ \t]|$)|[^\s#'"][^:]*:(?:[ \t]|$)|[[{])/

/**
 * Parses the YAML subset SKILL.md files use: top-level `key: value` lines whose values are
 * plain, 'single' or "double" quoted scalars (they may continue on indented lines), `|` and
 * `>` block scalars (with `-`/`+` chomping), lists of such scalars (`[a, "b"]`, or `- a`
 * lines under the key, indented or not), comments and blank lines. Maps, and lists of lists
 * or maps, under a key are skipped as `nested`. Deliberately simpler than YAML: scalars are never
 * typed (`true`, `12` stay text), and a plain value may contain `: `. Anchors, aliases, tags
 * and duplicate keys are errors. `firstLine` numbers the lines in messages.
 */
export const parseFrontMatter = (text: string, firstLine = 1): Either.Either<ReadonlyMap<string, FrontMatterValue>, string> => {
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === "") lines.pop()
  const values = new Map<string, FrontMatterValue>()
  let i = 0
  while (i < lines.length) {
    const line = lines[i] ?? ""
    const lineNo = firstLine + i
    if (isBlankOrComment(line)) {
      i++
      continue
    }
    if (/^\s/.test(line)) return Either.left(`line ${lineNo}: unexpected indentation (top-level keys start at the first column)`)
    const match = KEY_LINE.exec(line)
    if (match === null) return Either.left(`line ${lineNo}: expected "key: value", found ${JSON.stringify(truncate(line))}`)
    const key = match[1] ?? ""
    if (values.has(key)) return Either.left(`line ${lineNo}: duplicate key "${key}"`)
    // `- item` lines may start at the key's own column (valid YAML, and common in agent files).
    const listAtColumn0 = (match[2] ?? "").trim() === "" || (match[2] ?? "").trim().startsWith("#")
    let end = i + 1
    while (end < lines.length && (/^(?:\s|$)/.test(lines[end] ?? "") || (listAtColumn0 && /^(?:-(?:[ \t]|$)|#)/.test(lines[end] ?? "")))) end++
    const block = lines.slice(i + 1, end)
    const tab = block.findIndex((l) => /^\t/.test(l) && l.trim() !== "")
    if (tab >= 0) return Either.left(`line ${lineNo + 1 + tab}: tabs cannot indent YAML`)
    const value = scalar((match[2] ?? "").trim(), block, lineNo)
    if (Either.isLeft(value)) return Either.left(value.left)
    values.set(key, value.right)
    i = end
  }
  return Either.right(values)
}

const isBlankOrComment = (line: string) => /^\s*(?:#.*)?$/.test(line)
const isComment = (line: string) => /^\s*#/.test(line)

const truncate = (line: string) => (line.length > 60 ? `${line.slice(0, 57)}...` : line)

/** The value that starts as `raw` after the colon, with the indented lines that follow it. */
const scalar = (raw: string, block: ReadonlyArray<string>, lineNo: number): Either.Either<FrontMatterValue, string> => {
  const content = trimTrailingBlank(block)
  if (raw === "" || raw.startsWith("#")) {
    const first = content.find((l) => !isBlankOrComment(l))
    if (first === undefined) return Either.right(null)
    if (/^-(?:[ \t]|$)/.test(first.trim())) return blockList(content, lineNo)
    if (NESTED_START.test(first.trim())) return Either.right({ nested: true })
    return Either.right(foldPlain(content.filter((l) => !isComment(l)).map(withoutComment)))
  }
  const head = raw[0] ?? ""
  if (head === "|" || head === ">") return blockScalar(raw, block, lineNo)
  if (head === '"' || head === "'") return quoted(foldPlain([raw, ...content]), lineNo)
  if (head === "[") return flowList(foldPlain([raw, ...content.filter((l) => !isComment(l))]), lineNo)
  if (head === "{") return Either.right({ nested: true })
  if ("&*!%@`".includes(head)) {
    return Either.left(
      `line ${lineNo}: "${head}" starts an anchor, alias, tag or reserved YAML indicator, which SKILL.md front matter does not support; quote the value`
    )
  }
  return Either.right(foldPlain([withoutComment(raw), ...content.filter((l) => !isComment(l)).map(withoutComment)]))
}

const trimTrailingBlank = (lines: ReadonlyArray<string>): ReadonlyArray<string> => {
  let end = lines.length
  while (end > 0 && (lines[end - 1] ?? "").trim() === "") end--
  return lines.slice(0, end)
}

/** ` # ...` ends a plain scalar. */
const withoutComment = (line: string) => line.replace(/(?:^|[ \t])#.*$/, "")

/** Multi-line flow folding: lines are trimmed and joined by spaces; each blank line is a newline. */
const foldPlain = (lines: ReadonlyArray<string>): string => {
  let out = ""
  let pendingBreaks = 0
  for (const line of lines) {
    const trimmed = line.trim()
    if (trimmed === "") {
      pendingBreaks++
      continue
    }
    if (out !== "") out += pendingBreaks > 0 ? "\n".repeat(pendingBreaks) : " "
    out += trimmed
    pendingBreaks = 0
  }
  return out
}

const DOUBLE_ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0", a: "\x07", b: "\b", t: "\t", "\t": "\t", n: "\n", v: "\v", f: "\f", r: "\r", e: "\x1b",
  " ": " ", '"': '"', "/": "/", "\\": "\\", N: "\u0085", _: "\u00a0", L: "\u2028", P: "\u2029"
}
const HEX_ESCAPES: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 }

/** A quoted scalar (already folded onto one line); only a comment may follow the closing quote. */
const quoted = (text: string, lineNo: number): Either.Either<string, string> =>
  Either.flatMap(quotedAt(text, 0, lineNo), ({ value, end }) => {
    const rest = text.slice(end)
    if (!isBlankOrComment(rest) || (rest !== "" && !/^[ \t]/.test(rest))) {
      return Either.left(`line ${lineNo}: unexpected text after the closing quote: ${JSON.stringify(truncate(rest.trim()))}`)
    }
    return Either.right(value)
  })

/** The quoted scalar whose opening quote is at `start`, and where it ends (just past its closing quote). */
const quotedAt = (text: string, start: number, lineNo: number): Either.Either<{ readonly value: string; readonly end: number }, string> => {
  const quote = text[start] ?? ""
  let out = ""
  let i = start + 1
  for (;;) {
    if (i >= text.length) return Either.left(`line ${lineNo}: the ${quote === '"' ? "double" : "single"}-quoted value is not closed`)
    const ch = text[i] ?? ""
    if (quote === "'" && ch === "'") {
      if (text[i + 1] === "'") {
        out += "'"
        i += 2
        continue
      }
      break
    }
    if (quote === '"' && ch === '"') break
    if (quote === '"' && ch === "\\") {
      const code = text[i + 1] ?? ""
      const simple = DOUBLE_ESCAPES[code]
      if (simple !== undefined) {
        out += simple
        i += 2
        continue
      }
      const width = HEX_ESCAPES[code]
      const hex = width === undefined ? "" : text.slice(i + 2, i + 2 + width)
      if (width === undefined || !/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== width) {
        return Either.left(`line ${lineNo}: invalid escape "\\${code}" in a double-quoted value`)
      }
      const point = Number.parseInt(hex, 16)
      if (point > 0x10ffff) return Either.left(`line ${lineNo}: invalid escape "\\${code}${hex}" in a double-quoted value`)
      out += String.fromCodePoint(point)
      i += 2 + width
      continue
    }
    out += ch
    i++
  }
  return Either.right({ value: out, end: i + 1 })
}

/**
 * A flow list (already folded onto one line): `[a, "b c", 'd']`, plain or quoted items, a
 * trailing comma allowed; a list or map inside it makes the whole value `nested`.
 */
const flowList = (text: string, lineNo: number): Either.Either<FrontMatterValue, string> => {
  const items: Array<string> = []
  let i = 1
  const skipSpaces = () => {
    while (text[i] === " " || text[i] === "\t") i++
  }
  for (;;) {
    skipSpaces()
    const ch = text[i]
    if (ch === undefined) return Either.left(`line ${lineNo}: the list is not closed by "]"`)
    if (ch === "]") break
    if (ch === "[" || ch === "{") return Either.right({ nested: true })
    if (ch === ",") return Either.left(`line ${lineNo}: an empty item in the list ${JSON.stringify(truncate(text))}`)
    if (ch === '"' || ch === "'") {
      const item = quotedAt(text, i, lineNo)
      if (Either.isLeft(item)) return Either.left(item.left)
      items.push(item.right.value)
      i = item.right.end
    } else {
      const start = i
      while (i < text.length && !",]".includes(text[i] ?? "")) i++
      const item = text.slice(start, i).trim()
      if (/[[{}]/.test(item)) return Either.right({ nested: true })
      if (/(?:^|[ \t])#/.test(item)) return Either.left(`line ${lineNo}: the list is not closed by "]" before its comment`)
      items.push(item)
    }
    skipSpaces()
    if (text[i] === ",") {
      i++
      continue
    }
    if (text[i] === "]") break
    if (text[i] === undefined) return Either.left(`line ${lineNo}: the list is not closed by "]"`)
    return Either.left(`line ${lineNo}: expected "," or "]" after a list item, found ${JSON.stringify(text[i])}`)
  }
  const rest = text.slice(i + 1)
  if (!isBlankOrComment(rest) || (rest !== "" && !/^[ \t]/.test(rest))) {
    return Either.left(`line ${lineNo}: unexpected text after the list's "]": ${JSON.stringify(truncate(rest.trim()))}`)
  }
  return Either.right(items)
}

/**
 * A block list: `- item` lines at one indentation (that of the first), each a plain or quoted
 * scalar on its line; an item that holds a list or map, or goes on over more lines, makes the
 * whole value `nested`.
 */
const blockList = (content: ReadonlyArray<string>, lineNo: number): Either.Either<FrontMatterValue, string> => {
  const items: Array<string> = []
  let indent: number | undefined
  for (const [offset, line] of content.entries()) {
    if (isBlankOrComment(line)) continue
    const at = lineNo + 1 + offset
    indent ??= leadingSpaces(line)
    if (leadingSpaces(line) !== indent) return leadingSpaces(line) > indent ? Either.right({ nested: true }) : Either.left(`line ${at}: less indented than the list's first item`)
    const item = /^-(?:[ \t]+(.*))?$/.exec(line.slice(indent))
    if (item === null) return Either.left(`line ${at}: expected a list item ("- value"), found ${JSON.stringify(truncate(line.trim()))}`)
    const raw = (item[1] ?? "").trim()
    if (raw === "" || raw.startsWith("#") || NESTED_START.test(raw)) return Either.right({ nested: true })
    const head = raw[0] ?? ""
    if ("&*!%@`|>".includes(head)) return Either.left(`line ${at}: "${head}" in a list item is not supported; quote the value`)
    const value = head === '"' || head === "'" ? quoted(raw, at) : Either.right(withoutComment(raw).trim())
    if (Either.isLeft(value)) return Either.left(value.left)
    items.push(value.right)
  }
  return Either.right(items)
}

/** `|` keeps line breaks, `>` folds them; `-` strips the final break, `+` keeps trailing ones. */
const blockScalar = (header: string, block: ReadonlyArray<string>, lineNo: number): Either.Either<string, string> => {
  const match = /^([|>])([+-]?)(?:[ \t]+#.*)?$/.exec(header)
  if (match === null) {
    return Either.left(`line ${lineNo}: unsupported block scalar header ${JSON.stringify(header)} (use |, |-, |+, >, >- or >+)`)
  }
  const literal = match[1] === "|"
  const chomp = match[2] ?? ""
  const content = trimTrailingBlank(block)
  const first = content.find((l) => l.trim() !== "")
  if (first === undefined) return Either.right("")
  const indent = leadingSpaces(first)
  const lines: Array<string> = []
  for (const [offset, line] of content.entries()) {
    if (line.trim() === "") {
      lines.push("")
      continue
    }
    if (leadingSpaces(line) < indent) {
      return Either.left(`line ${lineNo + 1 + offset}: less indented than the first line of the block`)
    }
    lines.push(line.slice(indent))
  }
  const text = literal ? lines.join("\n") : foldBlock(lines)
  if (chomp === "-") return Either.right(text)
  const trailing = chomp === "+" ? block.length - content.length : 0
  return Either.right(`${text}\n${"\n".repeat(trailing)}`)
}

/** YAML indents with spaces only; a tab after them is content. */
const leadingSpaces = (line: string) => line.length - line.replace(/^ +/, "").length

/** Folded block: adjacent lines join with a space, blank lines are breaks, more-indented lines keep theirs. */
const foldBlock = (lines: ReadonlyArray<string>): string => {
  let out = ""
  let previous: "none" | "text" | "indented" | "blank" = "none"
  for (const line of lines) {
    const indented = /^\s/.test(line)
    if (line === "") {
      out += "\n"
      previous = "blank"
      continue
    }
    if (previous === "text" && !indented) out += " "
    else if (previous === "indented" || (previous === "text" && indented)) out += "\n"
    out += line
    previous = indented ? "indented" : "text"
  }
  return out
}

/** A header's schema errors as one line: a missing key by name, the others by their own message. */
export const describeHeaderError = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => (issue._tag === "Missing" ? `"${issue.path.map(String).join(".")}" is missing` : issue.message))
    .join("; ")
