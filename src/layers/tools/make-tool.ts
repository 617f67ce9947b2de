import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type PreparedCall, type Tool, type ToolContext, ToolInputError } from "../../services/ToolRouter.js"

export interface ToolSpec<A, I> {
  readonly name: string
  readonly description: string
  /** The input's effect Schema: the single source of the JSON Schema and of validation. */
  readonly input: Schema.Schema<A, I, never>
  /** Works out a validated call's facts; only input problems the schema cannot express fail here. */
  readonly prepare: (input: A, ctx: ToolContext) => Effect.Effect<PreparedCall, ToolInputError>
}

/** Builds a Tool whose model-facing JSON Schema is derived from, and whose input is decoded by, one effect Schema. */
export const makeTool = <A, I>(spec: ToolSpec<A, I>): Tool => {
  const decode = Schema.decodeUnknownEither(spec.input, { errors: "all", onExcessProperty: "error" })
  return {
    definition: { name: spec.name, description: spec.description, inputSchema: toModelJsonSchema(spec.input) },
    prepare: (input, ctx) =>
      Either.match(decode(input), {
        onLeft: (error) => Effect.fail(new ToolInputError({ message: describeInputError(error) })),
        onRight: (decoded) => spec.prepare(decoded, ctx)
      })
  }
}

/**
 * Lists every bad field once, in a form the model can act on: `path: is missing; offset:
 * Expected ...`. No "invalid input for <tool>" prefix: the router adds it, naming the call.
 */
const describeInputError = (error: ParseResult.ParseError): string => {
  const seen = new Set<string>()
  const problems: Array<string> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const field = issue.path.length === 0 ? "input" : issue.path.map(String).join(".")
    if (seen.has(field)) continue
    seen.add(field)
    problems.push(`${field}: ${issue.message}`)
  }
  return problems.join("; ")
}

/**
 * effect's JSON Schema, minus what only adds noise for a model: the `$schema` URL and the
 * `title`s that refinements generate (`greaterThanOrEqualTo(1)`); descriptions stay.
 */
const toModelJsonSchema = <A, I>(schema: Schema.Schema<A, I, never>): Record<string, unknown> => {
  const cleaned = withoutTitles(JSONSchema.make(schema))
  const root: Record<string, unknown> = isRecord(cleaned) ? { ...cleaned } : {}
  delete root["$schema"]
  return root
}

const withoutTitles = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutTitles)
  if (!isRecord(value)) return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    if (key === "title" && typeof inner === "string") continue
    out[key] = withoutTitles(inner)
  }
  return out
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)
