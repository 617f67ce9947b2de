import type { Headers } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import { openaiLabel } from "./openai-events.js"
import { classifyProblem, networkFailure, parseRetryAfter } from "./provider-errors.js"
import type { AttemptFailure } from "./retry.js"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/**
 * The message and type/code of an error body. Servers disagree on its shape: OpenAI and vLLM
 * send `{error: {message, type, code}}`, Ollama `{error: "..."}`, others `{detail}` or
 * `{message}`; anything else is quoted as it came.
 */
const readErrorBody = (body: string): { readonly detail: string; readonly errorType?: string } => {
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

/** An HTTP error answer (status >= 400) with its body text. */
export const fromHttpError = (status: number, body: string, headers: Headers.Headers): AttemptFailure => {
  const retryAfter = parseRetryAfter(headers["retry-after"], Date.now())
  return classifyProblem(openaiLabel, {
    status,
    ...readErrorBody(body),
    ...(retryAfter === undefined ? {} : { retryAfter })
  })
}

/** The request could not be sent (RequestError), or the body broke while streaming (ResponseError). */
export const fromTransportError = (error: HttpClientError): AttemptFailure =>
  networkFailure(openaiLabel, error.cause ?? error, error._tag === "RequestError" ? "connecting" : "streaming")
