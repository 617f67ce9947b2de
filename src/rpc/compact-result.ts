import * as Option from "effect/Option"
import type { AgentEvent } from "../domain/events.js"

/** A compaction as the API answers it: whether one happened, and its summary. */
export const compactResult = (event: Option.Option<AgentEvent>): { readonly compacted: boolean; readonly summary?: string } =>
  Option.match(event, {
    onNone: () => ({ compacted: false }),
    onSome: (e) => (e.type === "context.compacted" ? { compacted: true, summary: e.payload.summary } : { compacted: true })
  })
