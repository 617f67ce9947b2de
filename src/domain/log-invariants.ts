import type { AgentEvent } from "./events.js"

export interface LogProblem {
  /** 0-based index of the first offending event. */
  readonly index: number
  readonly message: string
}

interface OpenTurn {
  readonly turnId: string
  readonly index: number
}

/** Where an event that names a turn stands against the turn that is open. */
const outOfTurn = (event: AgentEvent, turnId: string, open: OpenTurn | undefined, started: ReadonlySet<string>) =>
  started.has(turnId)
    ? `${event.type} of turn ${turnId} after its turn.completed`
    : open === undefined
      ? `${event.type} of turn ${turnId}, which never started`
      : `${event.type} of turn ${turnId} while turn ${open.turnId} is open`

/**
 * The first event that breaks what the engine guarantees of every log it writes (the list
 * `test/core/invariants.property.test.ts` checks): `session.created` comes only first; a turn
 * starts only while none is open, under an id of its own; exactly one `turn.completed` closes
 * it and none is open at the end; an event of a turn comes while that turn is open, never after
 * its `turn.completed`; no `tool.started` without an earlier `permission.resolved` allowing that
 * call; a `tool.output` only between its call's `tool.started` and `tool.completed`. Sequences
 * and the session id are `sessionLogProblem`'s. A tool started and never completed is not a
 * violation: a process that dies mid-call leaves one, closed as interrupted.
 */
export const invariantProblem = (events: ReadonlyArray<AgentEvent>): LogProblem | undefined => {
  const started = new Set<string>()
  const allowed = new Set<string>()
  /** Calls started and not completed yet: the only ones whose output is recorded. */
  const running = new Set<string>()
  let open: OpenTurn | undefined
  for (const [index, event] of events.entries()) {
    const problem = (message: string): LogProblem => ({ index, message })
    const turnId = event.turnId
    switch (event.type) {
      case "session.created":
        if (index > 0) return problem("a second session.created (only the first event is one)")
        break
      case "turn.started":
        if (turnId === undefined) return problem("turn.started without a turnId")
        if (open !== undefined) return problem(`turn ${turnId} starts while turn ${open.turnId} is open`)
        if (started.has(turnId)) return problem(`turn ${turnId} starts a second time`)
        started.add(turnId)
        open = { turnId, index }
        break
      case "turn.completed":
        if (turnId === undefined) return problem("turn.completed without a turnId")
        if (open?.turnId !== turnId) return problem(outOfTurn(event, turnId, open, started))
        open = undefined
        break
      default:
        if (turnId !== undefined && open?.turnId !== turnId) return problem(outOfTurn(event, turnId, open, started))
        if (event.type === "permission.resolved" && event.payload.decision === "allow") allowed.add(event.payload.toolCallId)
        if (event.type === "tool.started" && !allowed.has(event.payload.toolCallId)) {
          return problem(`tool.started for call ${event.payload.toolCallId} without an earlier permission.resolved allowing it`)
        }
        if (event.type === "tool.started") running.add(event.payload.toolCallId)
        if (event.type === "tool.completed") running.delete(event.payload.toolCallId)
        if (event.type === "tool.output" && !running.has(event.payload.toolCallId)) {
          return problem(`tool.output for call ${event.payload.toolCallId}, which is not running (no tool.started, or after its tool.completed)`)
        }
    }
  }
  return open === undefined ? undefined : { index: open.index, message: `turn ${open.turnId} is never closed (no turn.completed)` }
}
