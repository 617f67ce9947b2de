import type { Headers } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import { openaiLabel } from "./openai-events.js"
import { classifyProblem, networkFailure, parseRetryAfter, type ProviderLabel, readErrorBody } from "./provider-errors.js"
import type { AttemptFailure } from "./retry.js"

/** An HTTP error answer (status >= 400) with its body text. */
export const fromHttpError = (status: number, body: string, headers: Headers.Headers, label: ProviderLabel = openaiLabel): AttemptFailure => {
  const retryAfter = parseRetryAfter(headers["retry-after"], Date.now())
  return classifyProblem(label, {
    status,
    ...readErrorBody(body),
    ...(retryAfter === undefined ? {} : { retryAfter })
  })
}

/** The request could not be sent (RequestError), or the body broke while streaming (ResponseError). */
export const fromTransportError = (error: HttpClientError, label: ProviderLabel = openaiLabel): AttemptFailure =>
  networkFailure(label, error.cause ?? error, error._tag === "RequestError" ? "connecting" : "streaming")
