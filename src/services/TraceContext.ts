import * as Context from "effect/Context"

/** The trace a tool call belongs to, for the processes the call starts. */
export interface TraceContextShape {
  /** The W3C `traceparent` of the call's `execute_tool` span; undefined when tracing is off. */
  readonly traceparent: (sessionId: string, turnId: string, toolCallId: string) => string | undefined
}

export class TraceContext extends Context.Tag("custom-agent/TraceContext")<TraceContext, TraceContextShape>() {}
