import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ourToolName } from "../../domain/claude-tool-names.js"
import type { AgentDefinition } from "../../services/Agents.js"
import { definitionModel } from "../model/model-spec.js"
import { describeHeaderError, type FrontMatterValue, parseFrontMatter, splitFrontMatter } from "../skills/front-matter.js"
import { SkillDescription, SkillName } from "../skills/skill-header.js"

const isTextList = (value: unknown): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.every((item: unknown) => typeof item === "string")

/**
 * `tools: read_file, grep` (Claude Code's `Read, Grep` too), or a YAML list (`[read_file,
 * grep]`, or `- read_file` lines): names in our spelling, without repeats. An item may hold
 * several names separated by commas or spaces, as a line does.
 */
const ToolList = Schema.transformOrFail(Schema.Unknown, Schema.Array(Schema.String), {
  strict: true,
  decode: (value, _, ast) => {
    const lines = typeof value === "string" ? [value] : isTextList(value) ? value : undefined
    // One message for anything else (a map, a list of lists): a union would say each of its members' expectations.
    if (lines === undefined) return ParseResult.fail(new ParseResult.Type(ast, value, `"tools" must be tool names: on one line separated by commas, or a YAML list of names`))
    return ParseResult.succeed([...new Set(lines.flatMap((text) => text.split(/[\s,]+/)).filter((name) => name !== "").map(ourToolName))])
  },
  encode: ParseResult.succeed
})

const StepLimit = Schema.transform(
  Schema.String.pipe(Schema.pattern(/^\d{1,6}$/, { message: () => `"maxSteps" must be a whole number` })),
  Schema.Number,
  { strict: true, decode: Number, encode: String }
).pipe(Schema.between(1, 1000, { message: () => `"maxSteps" must be between 1 and 1000` }))

/** `model: inherit` (Claude Code's word) is the same as no model: the parent's; other names become a model id. */
const ModelName = Schema.transformOrFail(
  Schema.String.annotations({ message: () => `"model" must be text` }),
  Schema.OptionFromSelf(Schema.String),
  {
    strict: true,
    decode: (name, _, ast) =>
      Either.match(definitionModel(name), {
        onLeft: (message) => ParseResult.fail(new ParseResult.Type(ast, name, message)),
        onRight: ParseResult.succeed
      }),
    encode: (model) => ParseResult.succeed(Option.getOrElse(model, () => "inherit"))
  }
)

/** What an agent file's front matter must say; other keys are allowed and ignored. */
const AgentHeader = Schema.Struct({
  name: SkillName,
  description: SkillDescription,
  tools: Schema.optionalWith(ToolList, { exact: true }),
  model: Schema.optionalWith(ModelName, { exact: true }),
  maxSteps: Schema.optionalWith(StepLimit, { exact: true })
})
type AgentHeader = typeof AgentHeader.Type

const decodeHeader = Schema.decodeUnknownEither(AgentHeader, { errors: "all" })

/** A definition as its file says it; where it lies is the folder's to add. */
export type ParsedAgentFile = Omit<AgentDefinition, "path" | "source">

/** Keys whose value is empty (`tools:`) count as absent; a nested value stays, to be refused by its field's message. */
const present = (values: ReadonlyMap<string, FrontMatterValue>) =>
  Object.fromEntries([...values].filter(([, value]) => value !== null))

const fromHeader = (header: AgentHeader, body: string): Either.Either<ParsedAgentFile, string> => {
  const instructions = body.replace(/^(?:[ \t]*\r?\n)+/, "").trimEnd()
  if (instructions === "") return Either.left("the body is empty: it holds the agent's instructions")
  const model = header.model === undefined ? undefined : Option.getOrUndefined(header.model)
  return Either.right({
    name: header.name,
    description: header.description,
    ...(header.tools === undefined ? {} : { tools: header.tools }),
    ...(model === undefined ? {} : { model }),
    ...(header.maxSteps === undefined ? {} : { maxSteps: header.maxSteps }),
    instructions
  })
}

/** Reads an agent file: front matter (`name`, `description`, optional `tools`, `model`, `maxSteps`), then the instructions. */
export const parseAgentFile = (text: string): Either.Either<ParsedAgentFile, string> => {
  const split = splitFrontMatter(text)
  switch (split._tag) {
    case "NoFrontMatter":
      return Either.left('no front matter: an agent file starts with a "---" line, then "name:" and "description:", then a closing "---" line')
    case "Unclosed":
      return Either.left('the front matter is not closed by a "---" line')
    case "Split":
      return parseFrontMatter(split.frontMatter, 2).pipe(
        Either.flatMap((values) => Either.mapLeft(decodeHeader(present(values)), describeHeaderError)),
        Either.flatMap((header) => fromHeader(header, split.body))
      )
  }
}
