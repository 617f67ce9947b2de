import * as Duration from "effect/Duration"
import { ModelError } from "../../domain/errors.js"
import type { ModelErrorCode } from "../../domain/model.js"
import { AttemptFailure } from "./retry.js"

/** Who failed, for messages a person reads ("Anthropic", "the OpenAI-compatible server"). */
export interface ProviderLabel {
  readonly name: string
  /** The variable holding the key, named when the key is rejected. */
  readonly keyVariable: string
}

export interface ProviderProblem {
  /** HTTP status, when the provider answered with one (not for an error inside a stream). */
  readonly status?: number
  /** Provider error type or code (`overloaded_error`, `context_length_exceeded`, ...). */
  readonly errorType?: string
  readonly detail: string
  readonly retryAfter?: Duration.Duration
}

const contextOverflowPattern =
  /prompt is too long|context[ _-]length|context window|context size|maximum context|too many tokens|exceeds? the (available )?context/i

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/**
 * The message and type/code of an error body (an HTTP error answer's, or an error event's
 * data). Servers disagree on its shape: Anthropic sends `{type: "error", error: {type,
 * message}}`, OpenAI and vLLM `{error: {message, type, code}}`, Ollama `{error: "..."}`,
 * others `{detail}` or `{message}`; anything else is quoted as it came.
 */
export const readErrorBody = (body: string): { readonly detail: string; readonly errorType?: string } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return { detail: body.trim().slice(0, 500) || "(empty body)" }
  }
  if (isRecord(parsed)) {
    const error = parsed.error
    if (isRecord(error)) {
      const errorType = text(error.code) ?? text(error.type)
      return { detail: text(error.message) ?? JSON.stringify(error), ...(errorType === undefined ? {} : { errorType }) }
    }
    const detail = text(error) ?? text(parsed.message) ?? text(parsed.detail)
    if (detail !== undefined) return { detail }
  }
  return { detail: body.slice(0, 500) }
}

/** Error types carried by error events inside a stream, mapped to the status they stand for. */
const statusOfType: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  server_error: 500,
  timeout_error: 504,
  overloaded_error: 529
}

const failure = (code: ModelErrorCode, message: string, retryable: boolean, problem: ProviderProblem) =>
  new AttemptFailure({
    error: new ModelError({ code, message, ...(problem.status === undefined ? {} : { status: problem.status }) }),
    retryable,
    ...(problem.retryAfter === undefined ? {} : { retryAfter: problem.retryAfter })
  })

/**
 * Maps a provider's error to a domain error code and a retry decision: 401/403 `auth`;
 * 429 `rate_limited`, 529 or `overloaded_error` `overloaded`, 5xx `provider_error` and 408
 * `network`, all retryable; a prompt the provider finds too long `context_overflow`; any
 * other 4xx `bad_request`.
 */
export const classifyProblem = (provider: ProviderLabel, problem: ProviderProblem): AttemptFailure => {
  const status = problem.status ??
    (problem.errorType !== undefined && Object.hasOwn(statusOfType, problem.errorType) ? statusOfType[problem.errorType] : undefined)
  const where = problem.status === undefined ? "" : ` (HTTP ${problem.status})`
  const detail = problem.detail
  if (problem.errorType === "overloaded_error" || status === 529) {
    return failure("overloaded", `${provider.name} is overloaded${where}: ${detail}`, true, problem)
  }
  if (problem.errorType === "context_length_exceeded" || ((status === 400 || status === 413) && contextOverflowPattern.test(detail))) {
    return failure("context_overflow", `${provider.name} says the prompt is too long${where}: ${detail}`, false, problem)
  }
  if (problem.errorType === "insufficient_quota") {
    return failure("rate_limited", `${provider.name} quota exhausted${where}: ${detail}`, false, problem)
  }
  switch (status) {
    case 401:
      return failure("auth", `${provider.name} rejected the API key${where}: ${detail}. Check ${provider.keyVariable}.`, false, problem)
    case 403:
      return failure("auth", `${provider.name} denied access${where}: ${detail}. Check ${provider.keyVariable} and its permissions.`, false, problem)
    case 413:
      return failure("context_overflow", `${provider.name} says the request is too large${where}: ${detail}`, false, problem)
    case 429:
      return failure("rate_limited", `${provider.name} rate limit reached${where}: ${detail}`, true, problem)
    case 408:
      return failure("network", `${provider.name} timed out${where}: ${detail}`, true, problem)
  }
  if (status !== undefined && status >= 500) {
    return failure("provider_error", `${provider.name} failed${where}: ${detail}`, true, problem)
  }
  if (status !== undefined && status >= 400) {
    return failure("bad_request", `${provider.name} rejected the request${where}: ${detail}`, false, problem)
  }
  return failure("provider_error", `${provider.name} reported an error${where}: ${detail}`, false, problem)
}

/** Where a network failure happened, for the message. */
export type NetworkPhase = "connecting" | "streaming"

/** The connection failed or broke: retryable (only before anything was emitted, see modelAnswer). */
export const networkFailure = (provider: ProviderLabel, cause: unknown, phase: NetworkPhase): AttemptFailure =>
  new AttemptFailure({
    error: new ModelError({
      code: "network",
      message: phase === "connecting"
        ? `could not reach ${provider.name}: ${describe(cause)}`
        : `the connection to ${provider.name} broke while streaming: ${describe(cause)}`,
      cause
    }),
    retryable: true
  })

/** The provider sent something we cannot use. Not retried: the same request would likely get the same. */
export const invalidResponse = (provider: ProviderLabel, message: string): AttemptFailure =>
  new AttemptFailure({
    error: new ModelError({ code: "invalid_response", message: `${provider.name} sent an invalid response: ${message}` }),
    retryable: false
  })

/** The stream ended before the provider said it was complete. */
export const truncatedStream = (provider: ProviderLabel): AttemptFailure =>
  new AttemptFailure({
    error: new ModelError({ code: "network", message: `the response stream from ${provider.name} ended before the answer was complete` }),
    retryable: true
  })

/** `Retry-After` as seconds or an HTTP date. */
export const parseRetryAfter = (value: string | null | undefined, now: number): Duration.Duration | undefined => {
  if (value === null || value === undefined || value.trim() === "") return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return seconds >= 0 ? Duration.seconds(seconds) : undefined
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Duration.millis(Math.max(0, date - now))
}

/** A cause's message with the messages of its causes, e.g. `fetch failed: connect ECONNREFUSED`. */
export const describe = (cause: unknown): string => {
  const parts: Array<string> = []
  let current: unknown = cause
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      const message = current.message.replace(/\.$/, "")
      if (message !== "" && !parts.includes(message)) parts.push(message)
      current = current.cause
    } else {
      parts.push(String(current))
      break
    }
  }
  return parts.length === 0 ? "unknown error" : parts.join(": ")
}
