import * as Schema from "effect/Schema"

/** Answers a turn may give that fail its output schema before it ends with `output_invalid` (after the first). */
export const defaultOutputRetries = 2

/**
 * What a prompt asks of the turn it starts, beyond the step limit: spending limits checked at
 * each step boundary, and a JSON Schema its final answer must satisfy. Not kept for a queued
 * message (like the step limit).
 */
export const TurnTerms = Schema.Struct({
  /** The turn stops (`budget`) at the first step boundary where its requests cost this much or more. */
  maxCostUsd: Schema.optional(Schema.Finite.pipe(Schema.positive())),
  /** The turn stops (`budget`) at the first step boundary where its requests processed this many tokens or more. */
  maxTurnTokens: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** A JSON Schema the final answer (JSON) must validate against. */
  outputSchema: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  /** Further answers asked for when one does not validate (default 2). */
  outputRetries: Schema.optional(Schema.Int.pipe(Schema.between(0, 10)))
})
export type TurnTerms = typeof TurnTerms.Type
