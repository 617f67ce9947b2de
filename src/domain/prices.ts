import * as Schema from "effect/Schema"
import type { Usage } from "./model.js"

/** What a model charges, in USD per million tokens, and since when the figures are known to hold. */
export const ModelPrice = Schema.Struct({
  inputPerMTok: Schema.Finite.pipe(Schema.nonNegative()),
  outputPerMTok: Schema.Finite.pipe(Schema.nonNegative()),
  /** Reading the prompt cache; the input price when left out. */
  cacheReadPerMTok: Schema.optional(Schema.Finite.pipe(Schema.nonNegative())),
  /** Writing the prompt cache; the input price when left out. */
  cacheWritePerMTok: Schema.optional(Schema.Finite.pipe(Schema.nonNegative())),
  /** The date the figures were taken from the provider's price page (`YYYY-MM-DD`). */
  asOf: Schema.optional(Schema.String)
})
export type ModelPrice = typeof ModelPrice.Type

/** Prices keyed by the model id `--model` selects (`anthropic/<id>`, `openai/<id>`, `scripted`). */
export const PriceTable = Schema.Record({ key: Schema.String, value: ModelPrice })
export type PriceTable = typeof PriceTable.Type

const claudeOpus45: ModelPrice = { inputPerMTok: 5, outputPerMTok: 25, cacheReadPerMTok: 0.5, cacheWritePerMTok: 6.25, asOf: "2025-11-24" }
const claudeSonnet45: ModelPrice = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75, asOf: "2025-11-24" }
const claudeHaiku45: ModelPrice = { inputPerMTok: 1, outputPerMTok: 5, cacheReadPerMTok: 0.1, cacheWritePerMTok: 1.25, asOf: "2025-11-24" }

/**
 * The package's prices: list prices (5-minute cache writes) as published on the date each
 * entry carries. Models not listed have no price until the user's settings give one
 * (`prices` in settings.json, which also overrides these); a provider that reports a
 * request's cost itself is believed over this table.
 */
export const packagedPrices: PriceTable = {
  "anthropic/claude-opus-4-5": claudeOpus45,
  "anthropic/claude-sonnet-4-5": claudeSonnet45,
  "anthropic/claude-haiku-4-5": claudeHaiku45,
  "openai/gpt-4.1": { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5, asOf: "2025-04-14" },
  "openai/gpt-4.1-mini": { inputPerMTok: 0.4, outputPerMTok: 1.6, cacheReadPerMTok: 0.1, asOf: "2025-04-14" },
  "openai/gpt-4o": { inputPerMTok: 2.5, outputPerMTok: 10, cacheReadPerMTok: 1.25, asOf: "2025-04-14" },
  "openai/gpt-4o-mini": { inputPerMTok: 0.15, outputPerMTok: 0.6, cacheReadPerMTok: 0.075, asOf: "2025-04-14" }
}

/**
 * The USD cost of one request's usage. The domain keeps cache tokens apart from input tokens
 * (adapters subtract them), so each count is priced once. Rounded to a millionth of a cent so
 * sums of many requests stay readable.
 */
export const costOf = (price: ModelPrice, usage: Usage): number => {
  const perToken = (perMTok: number, tokens: number) => (perMTok * tokens) / 1_000_000
  const total =
    perToken(price.inputPerMTok, usage.inputTokens) +
    perToken(price.outputPerMTok, usage.outputTokens) +
    perToken(price.cacheReadPerMTok ?? price.inputPerMTok, usage.cacheReadTokens ?? 0) +
    perToken(price.cacheWritePerMTok ?? price.inputPerMTok, usage.cacheWriteTokens ?? 0)
  return Math.round(total * 1e8) / 1e8
}

/** All the tokens a request processed: what `--max-turn-tokens` counts. */
export const tokensOf = (usage: Usage): number =>
  usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0)
