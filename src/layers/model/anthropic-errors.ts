import type { IncomingHttpHeaders } from "node:http"
import { anthropicLabel } from "./anthropic-events.js"
import { classifyProblem, networkFailure, type NetworkPhase, parseRetryAfter, readErrorBody } from "./provider-errors.js"
import type { AttemptFailure } from "./retry.js"

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** An HTTP error answer (status >= 400) with its body text. */
export const fromHttpError = (status: number, body: string, headers: IncomingHttpHeaders): AttemptFailure => {
  const retryAfter = parseRetryAfter(header(headers, "retry-after"), Date.now())
  return classifyProblem(anthropicLabel, { status, ...readErrorBody(body), ...(retryAfter === undefined ? {} : { retryAfter }) })
}

/** An `event: error` inside the stream: its type (e.g. `overloaded_error`) decides. */
export const fromStreamError = (data: string): AttemptFailure => classifyProblem(anthropicLabel, readErrorBody(data))

/** The request could not be sent, or its answer broke off while it was read. */
export const fromTransportError = (error: unknown, phase: NetworkPhase): AttemptFailure =>
  networkFailure(anthropicLabel, error, phase)
