import type { AgentEvent } from "../../src/domain/events.js"

/**
 * What a dead process leaves: a turn started, its permission question asked, nothing after
 * (turn `turn_dead`, question `call_w`). In the catalogue's field order, as the engine writes them.
 */
export const leftOpenLog = (sessionId: string): ReadonlyArray<AgentEvent> => {
  const at = (sequence: number, turnId?: string) => ({
    id: `evt_dead_${sequence}`,
    schemaVersion: 1 as const,
    sessionId,
    ...(turnId === undefined ? {} : { turnId }),
    sequence,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, sequence)).toISOString()
  })
  return [
    { ...at(1), type: "session.created", payload: { cwd: "/work", client: "cli", title: "Crashed" } },
    { ...at(2, "turn_dead"), type: "turn.started", payload: { promptPreview: "write it" } },
    { ...at(3, "turn_dead"), type: "user.message", payload: { content: "write it", mode: "queue" } },
    { ...at(4, "turn_dead"), type: "permission.requested", payload: { toolCallId: "call_w", tool: "write_file", risk: "write", summary: "write x.txt" } }
  ]
}
