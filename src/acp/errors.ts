import * as Data from "effect/Data"
import type { EngineError } from "../domain/errors.js"
import type { RewindUnavailable } from "../domain/rewind.js"
import type { McpError } from "../services/McpHub.js"

/**
 * A JSON-RPC error to answer a request with: the handlers fail with it and the SDK boundary
 * turns it into the SDK's error response. Codes follow JSON-RPC and ACP.
 */
export class ProtocolError extends Data.TaggedError("ProtocolError")<{
  readonly code: number
  readonly message: string
  readonly data?: unknown
}> {}

export const invalidParams = (message: string, data?: unknown) =>
  new ProtocolError({ code: -32602, message: `Invalid params: ${message}`, ...(data === undefined ? {} : { data }) })

export const internalError = (message: string, data?: unknown) =>
  new ProtocolError({ code: -32603, message, ...(data === undefined ? {} : { data }) })

/** ACP's "Resource not found" for a session that does not exist or is not open on this connection. */
export const sessionNotFound = (sessionId: string) =>
  new ProtocolError({ code: -32002, message: "Resource not found", data: { sessionId } })

export const fromEngineError = (error: EngineError | McpError | RewindUnavailable): ProtocolError =>
  error._tag === "SessionNotFound" ? sessionNotFound(error.sessionId) : internalError(error.message, { reason: error._tag })
