import { createHash } from "node:crypto"

/**
 * Trace and span ids derived from the log's own ids, so a turn projected live and the same
 * turn re-exported from the stored log get the same ids, and a tool's child process can be
 * handed its span's `TRACEPARENT` before the span itself is exported.
 */
const hex = (text: string, chars: number): string => createHash("sha256").update(text).digest("hex").slice(0, chars)

/** One trace per turn; a fork's copy of a turn is another trace (the session id is part of it). */
export const traceIdOf = (sessionId: string, turnId: string): string => hex(`trace\u0000${sessionId}\u0000${turnId}`, 32)

export const agentSpanIdOf = (sessionId: string, turnId: string): string => hex(`invoke_agent\u0000${sessionId}\u0000${turnId}`, 16)

/** The n-th model request (from 1) of a turn. */
export const chatSpanIdOf = (sessionId: string, turnId: string, request: number): string =>
  hex(`chat\u0000${sessionId}\u0000${turnId}\u0000${request}`, 16)

export const toolSpanIdOf = (sessionId: string, turnId: string, toolCallId: string): string =>
  hex(`execute_tool\u0000${sessionId}\u0000${turnId}\u0000${toolCallId}`, 16)

/** The W3C `traceparent` of a tool call's span, or without one of the turn's (sampled), for the processes they start. */
export const spanTraceparent = (sessionId: string, turnId: string, toolCallId?: string): string =>
  `00-${traceIdOf(sessionId, turnId)}-${toolCallId === undefined ? agentSpanIdOf(sessionId, turnId) : toolSpanIdOf(sessionId, turnId, toolCallId)}-01`
