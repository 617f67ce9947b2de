import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/**
 * Where a running tool call's output goes while the call runs. The engine provides it around
 * each call it executes whose prepared call says `liveOutput` (`src/core/tool-output.ts`) and
 * records what it is given as the call's `tool.output` events, coalesced and bounded; the result
 * still carries the output the model reads. A tool reads it with `Effect.serviceOption`: run
 * outside the engine (a test, a direct call) its output is only in its result.
 */
export interface ToolOutputShape {
  /** Output as it arrives, decoded. Never waits and never fails: the engine keeps what its bounds allow and records it later. */
  readonly write: (text: string) => Effect.Effect<void>
}

export class ToolOutput extends Context.Tag("custom-agent/ToolOutput")<ToolOutput, ToolOutputShape>() {}
