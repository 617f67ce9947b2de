import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { formatBytes } from "../tools/format-bytes.js"
import { describeHeaderError, parseFrontMatter, splitFrontMatter } from "./front-matter.js"

const text = (field: string) => Schema.String.annotations({ message: () => `"${field}" must be text` })

/** Lowercase letters, digits, `-`, `_` and `.`; starts with a letter or digit; at most 64 characters. */
export const SkillName = text("name").pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9._-]*$/, {
    message: () => `"name" may only hold lowercase letters, digits, "-", "_" and "." (starting with a letter or digit)`
  }),
  Schema.maxLength(64, { message: () => `"name" is longer than 64 characters` })
)

export const DESCRIPTION_MAX_LENGTH = 1024

/** One line for the catalogue: whitespace runs (including a block scalar's breaks) become single spaces. */
export const SkillDescription = Schema.transform(text("description"), Schema.String, {
  strict: true,
  decode: (s) => s.replace(/\s+/g, " ").trim(),
  encode: (s) => s
}).pipe(
  Schema.minLength(1, { message: () => `"description" is empty` }),
  Schema.maxLength(DESCRIPTION_MAX_LENGTH, { message: () => `"description" is longer than ${DESCRIPTION_MAX_LENGTH} characters` })
)

/** What a SKILL.md's front matter must say; other keys are allowed and ignored. */
export const SkillHeader = Schema.Struct({ name: SkillName, description: SkillDescription })
export type SkillHeader = typeof SkillHeader.Type

const decodeHeader = Schema.decodeUnknownEither(SkillHeader, { errors: "all" })

export interface ParsedSkillFile {
  readonly header: SkillHeader
  readonly body: string
}

/**
 * Reads a SKILL.md's text: front matter, validated, then the body. `readLimit` says the text
 * is only the file's first bytes, so a closing `---` may lie beyond them.
 */
export const parseSkillFile = (text: string, readLimit?: number): Either.Either<ParsedSkillFile, string> => {
  const split = splitFrontMatter(text)
  switch (split._tag) {
    case "NoFrontMatter":
      return Either.left('no front matter: SKILL.md must start with a "---" line, then "name:" and "description:", then a closing "---" line')
    case "Unclosed":
      return Either.left(
        `the front matter is not closed by a "---" line${readLimit === undefined ? "" : ` within the first ${formatBytes(readLimit)}`}`
      )
    case "Split":
      return parseFrontMatter(split.frontMatter, 2).pipe(
        Either.flatMap((values) => Either.mapLeft(decodeHeader(Object.fromEntries(values)), describeHeaderError)),
        Either.map((header) => ({ header, body: split.body.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd() }))
      )
  }
}
