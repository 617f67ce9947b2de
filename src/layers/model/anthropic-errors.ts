import { APIConnectionError, APIError, APIUserAbortError } from "@anthropic-ai/sdk"
import { anthropicLabel } from "./anthropic-events.js"
import { classifyProblem, describe, invalidResponse, type NetworkPhase, networkFailure, parseRetryAfter } from "./provider-errors.js"
import type { AttemptFailure } from "./retry.js"

/**
 * Maps whatever the SDK threw to an attempt failure. An APIError with a status is an HTTP
 * error answer; one without a status is an `event: error` inside the stream (its type, e.g.
 * `overloaded_error`, decides); connection errors and a body that breaks while it streams
 * are network failures; a data line that is not JSON is an invalid response.
 */
export const fromAnthropicError = (error: unknown, phase: NetworkPhase): AttemptFailure => {
  if (error instanceof APIUserAbortError) return networkFailure(anthropicLabel, error, phase)
  if (error instanceof APIConnectionError) return networkFailure(anthropicLabel, error, phase)
  if (error instanceof APIError) {
    const retryAfter = parseRetryAfter(error.headers?.get("retry-after"), Date.now())
    return classifyProblem(anthropicLabel, {
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.type === null ? {} : { errorType: error.type }),
      detail: error.apiMessage ?? error.message,
      ...(retryAfter === undefined ? {} : { retryAfter })
    })
  }
  if (error instanceof SyntaxError) return invalidResponse(anthropicLabel, `a stream event is not JSON (${error.message})`)
  if (error instanceof Error) return networkFailure(anthropicLabel, error, phase)
  return invalidResponse(anthropicLabel, describe(error))
}
