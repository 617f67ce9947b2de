import * as Data from "effect/Data"
import type { EngineError, TurnInProgress } from "../domain/errors.js"
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

/**
 * Refused because a turn runs on the session (or one of its subagents): said plainly, with
 * what to do, since ACP has no code of its own for it.
 */
export const turnRunning = (error: TurnInProgress, what: string) =>
  new ProtocolError({
    code: -32603,
    message: `session ${error.sessionId} cannot be ${what} while a turn runs on it${error.elsewhere === true ? " in another process" : ""}; cancel the turn (session/cancel) or wait for it to end, then try again`,
    data: { reason: "TurnInProgress", sessionId: error.sessionId }
  })
