import { Options } from "@effect/cli"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { messageOf } from "../domain/cause-message.js"
import type { TurnTerms } from "../domain/turn-terms.js"
import { compileSchema } from "../layers/output/ajv.js"
import { usageError } from "./errors.js"
import { existing, positiveUsd, positiveWhole } from "./options.js"

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** The exit code of a turn whose answers never validated against `--output-schema`, as the README promises. */
export const OUTPUT_INVALID_EXIT_CODE = 3

/**
 * `--output-schema FILE`: a JSON Schema, read and compiled before anything runs, so a missing
 * file, bad JSON or a schema the validator cannot use is a usage error, not a failed turn.
 */
export const outputSchema = Options.text("output-schema").pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription(
    `A JSON Schema the final answer must validate against; an answer that does not is sent back with the problems (--output-retries times), then the run exits ${OUTPUT_INVALID_EXIT_CODE}`
  ),
  Options.mapEffect((path) =>
    Effect.gen(function* () {
      const fs = yield* FileSystem.FileSystem
      yield* existing("--output-schema", "File")(path)
      const text = yield* fs.readFileString(path).pipe(Effect.mapError((error) => usageError(`--output-schema ${path}: cannot be read (${messageOf(error)})`)))
      const parsed = yield* Effect.try({ try: (): unknown => JSON.parse(text), catch: (error) => usageError(`--output-schema ${path}: not JSON (${messageOf(error)})`) })
      if (!isObject(parsed)) return yield* Effect.fail(usageError(`--output-schema ${path}: a JSON Schema is an object`))
      yield* compileSchema(parsed).pipe(Effect.mapError((error) => usageError(`--output-schema ${path}: ${error.message}`)))
      return parsed
    })
  ),
  Options.optional
)

export const outputRetries = positiveWhole("output-retries").pipe(
  Options.mapEffect((n) => (n <= 10 ? Effect.succeed(n) : Effect.fail(usageError(`--output-retries must be at most 10, got ${n}`)))),
  Options.withDescription("Answers asked for again when one fails --output-schema, at most 10 (default 2)"),
  Options.optional
)

export const maxCostUsd = positiveUsd("max-cost-usd").pipe(
  Options.withDescription("Stop the turn (stop reason budget) at the first step boundary where its model requests cost this much"),
  Options.optional
)

export const maxTurnTokens = positiveWhole("max-turn-tokens").pipe(
  Options.withDescription("Stop the turn (stop reason budget) at the first step boundary where its model requests processed this many tokens"),
  Options.optional
)

/** The options that become a turn's terms. */
export interface TermsArgs {
  readonly maxCostUsd: Option.Option<number>
  readonly maxTurnTokens: Option.Option<number>
  readonly outputSchema: Option.Option<Record<string, unknown>>
  readonly outputRetries: Option.Option<number>
}

export const termsOf = (args: TermsArgs): TurnTerms | undefined => {
  const terms: TurnTerms = {
    ...(Option.isSome(args.maxCostUsd) ? { maxCostUsd: args.maxCostUsd.value } : {}),
    ...(Option.isSome(args.maxTurnTokens) ? { maxTurnTokens: args.maxTurnTokens.value } : {}),
    ...(Option.isSome(args.outputSchema) ? { outputSchema: args.outputSchema.value } : {}),
    ...(Option.isSome(args.outputRetries) ? { outputRetries: args.outputRetries.value } : {})
  }
  return Object.keys(terms).length === 0 ? undefined : terms
}
