import * as Context from "effect/Context"

/** The trace a tool call (or a turn) belongs to, for the processes it starts: shell commands, hooks. */
export interface TraceContextShape {
  /**
   * The W3C `traceparent` of the call's `execute_tool` span, or without a call of the turn's
   * `invoke_agent` span; undefined when tracing is off.
   */
  readonly traceparent: (sessionId: string, turnId: string, toolCallId?: string) => string | undefined
}

export class TraceContext extends Context.Tag("custom-agent/TraceContext")<TraceContext, TraceContextShape>() {}
