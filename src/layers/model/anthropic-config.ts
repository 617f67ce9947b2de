import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { type ModelConfigError, optionalUrl, requiredSecret } from "./model-config.js"
import { DEFAULT_ANTHROPIC_MODEL } from "./model-spec.js"
import type { RetryPolicy } from "./retry.js"

export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"

/** Everything the Anthropic adapter needs. Build it with `configFromEnv` or by hand (tests). */
export interface AnthropicConfig {
  readonly apiKey: Redacted.Redacted<string>
  /** Without the `/v1` path, as the SDK takes it. */
  readonly baseUrl: string
  readonly model: string
  /** `max_tokens` per request; default: the model's limit, at most 32,000. */
  readonly maxOutputTokens?: number
  /**
   * Turns extended thinking on (off when unset). Models that take a budget get it as
   * `budget_tokens` (at least 1,024, below `max_tokens`); newer models, which reject a
   * budget, get adaptive thinking and the number only switches it on.
   */
  readonly thinkingBudget?: number
  /** Overrides the catalogue's context window (a proxy with a smaller one, tests). */
  readonly contextWindow?: number
  /** Marks the prompt for caching (`cache_control` at the top level). Default: on. */
  readonly promptCaching?: boolean
  readonly retry?: Partial<RetryPolicy>
}

/** What the CLI passes on top of the environment. */
export interface AnthropicOptions {
  readonly model?: string
  readonly maxOutputTokens?: number
  readonly thinkingBudget?: number
}

/**
 * Reads `ANTHROPIC_API_KEY` (required: a missing or blank key fails with one
 * ModelConfigError naming it, before any request) and `ANTHROPIC_BASE_URL` (optional, so a
 * proxy or a local server can stand in). Values come from effect's ConfigProvider, the
 * process environment by default.
 */
export const configFromEnv = (options: AnthropicOptions = {}): Effect.Effect<AnthropicConfig, ModelConfigError> =>
  Effect.all({
    apiKey: requiredSecret("ANTHROPIC_API_KEY"),
    baseUrl: optionalUrl("ANTHROPIC_BASE_URL")
  }).pipe(
    Effect.map(({ apiKey, baseUrl }): AnthropicConfig => ({
      apiKey,
      baseUrl: Option.getOrElse(baseUrl, () => DEFAULT_ANTHROPIC_BASE_URL),
      model: options.model ?? DEFAULT_ANTHROPIC_MODEL,
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
      ...(options.thinkingBudget === undefined ? {} : { thinkingBudget: options.thinkingBudget })
    }))
  )
