import type { AgentEvent } from "./events.js"
import { TITLE_MAX_LENGTH } from "./session-title.js"

export interface ForkRequest {
  /** The new session's id. */
  readonly sessionId: string
  /** The source's sequence to fork at. */
  readonly atSequence: number
  /** Which client forks: the new session's `client`, and who titled it. */
  readonly by: string
  /** When the fork is made (ISO-8601): its own events' time; copied events keep theirs. */
  readonly timestamp: string
  /** A fresh event id per call. */
  readonly newId: () => string
}

/** Who a fork's own reset of the mode is recorded as made by. */
export const FORK_AUTHOR = "fork"

/** Where a fork at `atSequence` stops copying: there, or at the end of the last turn completed before it when it falls inside a turn. */
export const copiedThroughOf = (source: ReadonlyArray<AgentEvent>, atSequence: number): number => {
  let safe = 1
  let open = false
  for (const event of source) {
    if (event.sequence > atSequence) break
    if (event.type === "turn.started") open = true
    if (!open) safe = event.sequence
    if (event.type === "turn.completed") {
      open = false
      safe = event.sequence
    }
  }
  return safe
}

const titleOfFork = (source: ReadonlyArray<AgentEvent>, sourceId: string): string => {
  let title: string | undefined
  for (const event of source) {
    if (event.type === "session.created") title = event.payload.title
    if (event.type === "session.renamed") title = event.payload.title
  }
  const full = `fork of ${title ?? sourceId}`
  return full.length > TITLE_MAX_LENGTH ? `${full.slice(0, TITLE_MAX_LENGTH - 1)}…` : full
}

/** Source sequence 1 stays 1 (each log's own `session.created`); the rest move one later, behind `session.forked`. */
const moved = (sequence: number) => (sequence >= 2 ? sequence + 1 : sequence)

/** A copied event's payload, its references to other events of the log moved to the fork's numbering. */
const copiedPayload = (event: AgentEvent): AgentEvent => {
  switch (event.type) {
    case "conversation.rewound":
      return { ...event, payload: { ...event.payload, toSequence: moved(event.payload.toSequence) } }
    case "checkpoint.restored":
      return { ...event, payload: { ...event.payload, checkpointSequence: moved(event.payload.checkpointSequence) } }
    case "context.compacted": {
      const { fromSequence } = event.payload
      return {
        ...event,
        payload: { ...event.payload, throughSequence: moved(event.payload.throughSequence), ...(fromSequence === undefined ? {} : { fromSequence: moved(fromSequence) }) }
      }
    }
    case "context.built": {
      const { compactedThrough, tasks } = event.payload
      if (compactedThrough === undefined && tasks === undefined) return event
      return {
        ...event,
        payload: {
          ...event.payload,
          ...(compactedThrough === undefined ? {} : { compactedThrough: moved(compactedThrough) }),
          ...(tasks === undefined ? {} : { tasks: { ...tasks, sequence: moved(tasks.sequence) } })
        }
      }
    }
    case "hook.ran":
      return event.payload.promptSequence === undefined
        ? event
        : { ...event, payload: { ...event.payload, promptSequence: moved(event.payload.promptSequence) } }
    default:
      return event
  }
}

/**
 * A new session's whole log, forked from `source` (a whole session log) at `atSequence`: its
 * own `session.created` (the source's workspace and model, titled "fork of ..."), then
 * `session.forked`, then the source's events 2..copiedThrough re-sequenced with new ids (types,
 * turn ids, timestamps and payloads kept; references to sequences moved). Messages that waited
 * in the source's inbox are not the fork's (its inbox is emptied), a mode the copied events set
 * is not either (reset to `default`), and the title is recorded last, so a copied rename does
 * not hold and the session lists as new.
 */
export const forkLog = (source: ReadonlyArray<AgentEvent>, request: ForkRequest): ReadonlyArray<AgentEvent> => {
  const header = source[0]
  if (header?.type !== "session.created") return []
  const copiedThrough = copiedThroughOf(source, request.atSequence)
  const title = titleOfFork(source, header.sessionId)
  const own = (sequence: number) => ({ id: request.newId(), schemaVersion: header.schemaVersion, sessionId: request.sessionId, sequence, timestamp: request.timestamp })
  const { cwd, model, unverifiedImport } = header.payload
  const events: Array<AgentEvent> = [
    {
      ...own(1),
      type: "session.created",
      payload: { cwd, client: request.by, title, ...(model === undefined ? {} : { model }), ...(unverifiedImport === undefined ? {} : { unverifiedImport }) }
    },
    { ...own(2), type: "session.forked", payload: { sourceSessionId: header.sessionId, atSequence: request.atSequence, copiedThrough } }
  ]
  let waiting = false
  let mode = "default"
  for (const event of source) {
    if (event.sequence < 2) continue
    if (event.sequence > copiedThrough) break
    if (event.type === "inbox.updated") waiting = event.payload.nextTurn.length + event.payload.nextStep.length > 0
    if (event.type === "session.mode_changed") mode = event.payload.mode
    events.push({ ...copiedPayload(event), id: request.newId(), sessionId: request.sessionId, sequence: moved(event.sequence) })
  }
  if (waiting) events.push({ ...own(events.length + 1), type: "inbox.updated", payload: { nextTurn: [], nextStep: [] } })
  // History is not authority: a mode the copied part set (an imported log's bypass, which its
  // import's own reset came after) is not the fork's. The fork starts in default, said so.
  if (mode !== "default") events.push({ ...own(events.length + 1), type: "session.mode_changed", payload: { mode: "default", by: FORK_AUTHOR } })
  events.push({ ...own(events.length + 1), type: "session.renamed", payload: { title, by: request.by } })
  return events
}
