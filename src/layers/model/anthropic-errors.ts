import type { IncomingHttpHeaders } from "node:http"
import { anthropicLabel } from "./anthropic-events.js"
import { classifyProblem, networkFailure, type NetworkPhase, parseRetryAfter } from "./provider-errors.js"
import type { AttemptFailure } from "./retry.js"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)

/**
 * The type and message of an Anthropic error body, `{"type":"error","error":{"type","message"}}`
 * (an HTTP error answer's body, or an `event: error`'s data). Anything else is quoted as it came.
 */
const readErrorBody = (body: string): { readonly detail: string | undefined; readonly errorType?: string } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return { detail: text(body.trim().slice(0, 500)) }
  }
  const error = isRecord(parsed) ? parsed["error"] : undefined
  if (isRecord(error)) {
    const errorType = text(error["type"])
    return { detail: text(error["message"]) ?? JSON.stringify(error), ...(errorType === undefined ? {} : { errorType }) }
  }
  return { detail: text(body.slice(0, 500)) }
}

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** An HTTP error answer (status >= 400) with its body text. */
export const fromHttpError = (status: number, body: string, headers: IncomingHttpHeaders): AttemptFailure => {
  const { detail, ...rest } = readErrorBody(body)
  const retryAfter = parseRetryAfter(header(headers, "retry-after"), Date.now())
  return classifyProblem(anthropicLabel, {
    status,
    ...rest,
    detail: detail ?? `${status} status code (no body)`,
    ...(retryAfter === undefined ? {} : { retryAfter })
  })
}

/** An `event: error` inside the stream: its type (e.g. `overloaded_error`) decides. */
export const fromStreamError = (data: string): AttemptFailure => {
  const { detail, ...rest } = readErrorBody(data)
  return classifyProblem(anthropicLabel, { ...rest, detail: detail ?? "an error event without a message" })
}

/** The request could not be sent, or its answer broke off while it was read. */
export const fromTransportError = (error: unknown, phase: NetworkPhase): AttemptFailure =>
  networkFailure(anthropicLabel, error, phase)
