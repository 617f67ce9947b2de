import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { type ModelConfigError, optionalPositiveInt, optionalUrl, optionalVariable } from "./model-config.js"
import type { RetryPolicy } from "./retry.js"

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

/** Everything the OpenAI-compatible adapter needs. Build it with `configFromEnv` or by hand (tests). */
export interface OpenAIConfig {
  /** With the version path (`https://api.openai.com/v1`, `http://localhost:11434/v1`). */
  readonly baseUrl: string
  /** Optional: local servers need none. */
  readonly apiKey?: Redacted.Redacted<string>
  readonly model: string
  /** The id the gateway reports and is recorded under; default `openai/<model>`. */
  readonly id?: string
  /** Sent as `max_tokens` when set; otherwise the server's default applies. */
  readonly maxOutputTokens?: number
  /** Overrides the catalogue's context window (local servers run with their own). */
  readonly contextWindow?: number
  readonly retry?: Partial<RetryPolicy>
}

export interface OpenAIOptions {
  readonly model: string
  readonly maxOutputTokens?: number
  /** The id the gateway reports (see `OpenAIConfig.id`). */
  readonly id?: string
}

/** OpenAI's own endpoint (which serves the Responses API), rather than another compatible server. */
export const isOpenAIEndpoint = (baseUrl: string): boolean =>
  URL.canParse(baseUrl) && new URL(baseUrl).hostname.toLowerCase() === "api.openai.com"

/**
 * Reads `OPENAI_BASE_URL` (default https://api.openai.com/v1), `OPENAI_API_KEY` (optional)
 * and `OPENAI_CONTEXT_WINDOW` (optional: the window the server really runs with, which the
 * preflight uses instead of the catalogue's guess). A malformed value fails with one
 * ModelConfigError naming the variable.
 */
export const configFromEnv = (options: OpenAIOptions): Effect.Effect<OpenAIConfig, ModelConfigError> =>
  Effect.all({
    baseUrl: optionalUrl("OPENAI_BASE_URL"),
    apiKey: optionalVariable("OPENAI_API_KEY"),
    contextWindow: optionalPositiveInt("OPENAI_CONTEXT_WINDOW")
  }).pipe(
    Effect.map(({ apiKey, baseUrl, contextWindow }): OpenAIConfig => ({
      baseUrl: Option.getOrElse(baseUrl, () => DEFAULT_OPENAI_BASE_URL),
      model: options.model,
      ...(options.id === undefined ? {} : { id: options.id }),
      ...Option.match(apiKey, { onNone: () => ({}), onSome: (key) => ({ apiKey: Redacted.make(key) }) }),
      ...Option.match(contextWindow, { onNone: () => ({}), onSome: (window) => ({ contextWindow: window }) }),
      ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens })
    }))
  )
