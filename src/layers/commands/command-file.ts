import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { describeHeaderError, type FrontMatterValue, parseFrontMatter, splitFrontMatter } from "../skills/front-matter.js"
import { formatBytes } from "../tools/format-bytes.js"

/**
 * Claude Code's front matter keys this agent reads and does not apply. `allowed-tools` would let
 * a file (a cloned repository's) widen what runs without a question; `model` would change the
 * session's model for every later turn and could send the conversation to another provider;
 * `disable-model-invocation` is about the model calling commands, which it cannot here.
 */
export const IGNORED_KEYS: ReadonlyArray<string> = ["allowed-tools", "model", "disable-model-invocation"]

export const DESCRIPTION_MAX_LENGTH = 1024

const text = (field: string) => Schema.String.annotations({ message: () => `"${field}" must be text` })

/** One line: whitespace runs (a block scalar's breaks too) become single spaces. */
const OneLine = (field: string) =>
  Schema.transform(text(field), Schema.String, { strict: true, decode: (s) => s.replace(/\s+/g, " ").trim(), encode: (s) => s }).pipe(
    Schema.maxLength(DESCRIPTION_MAX_LENGTH, { message: () => `"${field}" is longer than ${DESCRIPTION_MAX_LENGTH} characters` })
  )

/** What a command's front matter may say; every key is optional, other keys are allowed and ignored. */
const CommandHeader = Schema.Struct({
  description: Schema.optionalWith(OneLine("description"), { exact: true }),
  "argument-hint": Schema.optionalWith(OneLine("argument-hint"), { exact: true })
})

const decodeHeader = Schema.decodeUnknownEither(CommandHeader, { errors: "all" })

export interface ParsedCommandFile {
  readonly description: string
  readonly argumentHint?: string
  /** The keys of `IGNORED_KEYS` the file sets. */
  readonly ignored: ReadonlyArray<string>
  readonly body: string
}

const HINT_LINE = /^argument-hint[ \t]*:[ \t]+(\[.*)$/

/**
 * Claude Code's own examples write `argument-hint: [pr-number] [priority]`, which YAML reads as
 * a list followed by stray text. Such a value (one starting with `[`) is taken as written, and
 * its line left out of what the YAML reader sees (a comment keeps the line numbers).
 */
const takeRawHint = (frontMatter: string): { readonly frontMatter: string; readonly hint?: string } => {
  const lines = frontMatter.split(/\r?\n/)
  const at = lines.findIndex((line) => HINT_LINE.test(line))
  if (at < 0) return { frontMatter }
  const hint = (HINT_LINE.exec(lines[at] ?? "")?.[1] ?? "").replace(/[ \t]+#.*$/, "").trim()
  return { frontMatter: lines.map((line, i) => (i === at ? "#" : line)).join("\n"), hint }
}

/** Keys with an empty value (`description:`) count as absent; a nested value stays, to be refused by its field's message. */
const present = (values: ReadonlyMap<string, FrontMatterValue>) => Object.fromEntries([...values].filter(([, value]) => value !== null))

/** The body's first line that says something, for a command whose front matter has no `description`. */
const firstLine = (body: string): string => {
  const line = body.split(/\r?\n/).find((candidate) => candidate.trim() !== "") ?? ""
  const flat = line.replace(/\s+/g, " ").trim()
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat
}

/**
 * Reads a command file: optional front matter (`description`, `argument-hint`; Claude Code's
 * other keys are read past), then the prompt. `readLimit` says the text is only the file's first
 * bytes, so a closing `---` or the body may lie beyond them.
 */
export const parseCommandFile = (source: string, readLimit?: number): Either.Either<ParsedCommandFile, string> => {
  const split = splitFrontMatter(source)
  switch (split._tag) {
    case "NoFrontMatter":
      return fromParts({}, [], source, readLimit)
    case "Unclosed":
      return Either.left(`the front matter is not closed by a "---" line${readLimit === undefined ? "" : ` within the first ${formatBytes(readLimit)}`}`)
    case "Split": {
      const raw = takeRawHint(split.frontMatter)
      return parseFrontMatter(raw.frontMatter, 2).pipe(
        Either.flatMap((values) =>
          Either.map(Either.mapLeft(decodeHeader(present(values)), describeHeaderError), (header) => ({
            header: raw.hint === undefined ? header : { ...header, "argument-hint": raw.hint },
            ignored: IGNORED_KEYS.filter((key) => values.has(key))
          }))
        ),
        Either.flatMap(({ header, ignored }) => fromParts(header, ignored, split.body, readLimit))
      )
    }
  }
}

const fromParts = (
  header: { readonly description?: string; readonly "argument-hint"?: string },
  ignored: ReadonlyArray<string>,
  rest: string,
  readLimit: number | undefined
): Either.Either<ParsedCommandFile, string> => {
  const body = rest.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd()
  // Only the file's start was read: its body may lie past it.
  if (body === "" && readLimit === undefined) return Either.left("the body is empty: it holds the prompt the command sends")
  const description = header.description !== undefined && header.description !== "" ? header.description : firstLine(body)
  const hint = header["argument-hint"]
  return Either.right({ description, ...(hint === undefined || hint === "" ? {} : { argumentHint: hint }), ignored, body })
}
