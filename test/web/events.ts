import { Schema } from "effect"
import { type AgentEvent, AgentEvent as AgentEventSchema } from "../../src/domain/events.js"

const decodeEvent = Schema.decodeUnknownSync(AgentEventSchema)

/**
 * Events of one session, numbered in order, one second apart, and checked against the catalogue.
 * They belong to `turn_1` unless a turn is given; an explicit `undefined` means no turn.
 */
export const recorder = (sessionId = "ses_1") => {
  let sequence = 0
  return (type: string, payload: object, ...turn: [turnId?: string | undefined]): AgentEvent => {
    const turnId = turn.length === 0 ? "turn_1" : turn[0]
    sequence += 1
    return decodeEvent({
      id: `evt_${sequence}`,
      schemaVersion: 1,
      sessionId,
      ...(turnId === undefined ? {} : { turnId }),
      sequence,
      timestamp: new Date(Date.UTC(2025, 0, 1, 0, 0, sequence)).toISOString(),
      type,
      payload
    })
  }
}
