import type { AgentEvent, TurnStopReason } from "./events.js"

/**
 * What a session listing shows of a session's log besides its times and last sequence: the
 * header of its `session.created`, the title of its last `session.renamed`, its last
 * `session.archived` (left out: not archived), the turn it started and has not completed
 * (left out: none) and how its last completed turn ended (left out: no turn completed yet). A fold of the log, which every store keeps with its appends, and the
 * host's session-list watch with the events it hears.
 */
export interface ListingHeader {
  readonly cwd?: string
  readonly client?: string
  readonly title?: string
  readonly model?: string
  /** A subagent's session: the session whose `task` call started it. */
  readonly parentSessionId?: string
  readonly archived?: boolean
  readonly openTurnId?: string
  /** The stop reason of the session's last `turn.completed`: `error` is a session whose last turn failed. */
  readonly lastStopReason?: TurnStopReason
}

/** The header a listing starts from, taken from a session's first event when it is `session.created`. */
export const headerOf = (event: AgentEvent): ListingHeader =>
  event.type === "session.created"
    ? {
        cwd: event.payload.cwd,
        client: event.payload.client,
        ...(event.payload.title === undefined ? {} : { title: event.payload.title }),
        ...(event.payload.model === undefined ? {} : { model: event.payload.model }),
        ...(event.payload.parent === undefined ? {} : { parentSessionId: event.payload.parent.sessionId })
      }
    : {}

/**
 * What a batch of events changes in its session's listing: each field some event of the batch
 * set, with its value after the batch (`openTurnId: null`: the open turn was completed).
 */
export interface ListingChange {
  readonly title?: string
  readonly archived?: boolean
  readonly openTurnId?: string | null
  readonly lastStopReason?: TurnStopReason
}

/** The event types `listingChange` reads: no other event changes a listing after its first line. */
export const LISTING_EVENT_TYPES: ReadonlyArray<AgentEvent["type"]> = ["session.renamed", "session.archived", "turn.started", "turn.completed"]

/** The batch's change to the listing, or undefined when it changes nothing (most batches: no allocation). */
export const listingChange = (events: ReadonlyArray<AgentEvent>): ListingChange | undefined => {
  let title: string | undefined
  let archived: boolean | undefined
  let openTurnId: string | null | undefined
  let lastStopReason: TurnStopReason | undefined
  for (const event of events) {
    switch (event.type) {
      case "session.renamed":
        title = event.payload.title
        break
      case "session.archived":
        archived = event.payload.archived
        break
      case "turn.started":
        openTurnId = event.turnId ?? ""
        break
      case "turn.completed":
        openTurnId = null
        lastStopReason = event.payload.stopReason
        break
      default:
        break
    }
  }
  if (title === undefined && archived === undefined && openTurnId === undefined) return undefined
  return {
    ...(title === undefined ? {} : { title }),
    ...(archived === undefined ? {} : { archived }),
    ...(openTurnId === undefined ? {} : { openTurnId }),
    ...(lastStopReason === undefined ? {} : { lastStopReason })
  }
}

/** `header` after `change`; `archived` and `openTurnId` are left out when false or none, as in a listing. */
export const applyListingChange = (header: ListingHeader, change: ListingChange | undefined): ListingHeader => {
  if (change === undefined) return header
  const { archived, openTurnId, ...rest } = header
  const nowArchived = change.archived ?? archived ?? false
  const nowOpen = change.openTurnId === undefined ? openTurnId : (change.openTurnId ?? undefined)
  return {
    ...rest,
    ...(change.title === undefined ? {} : { title: change.title }),
    ...(change.lastStopReason === undefined ? {} : { lastStopReason: change.lastStopReason }),
    ...(nowArchived ? { archived: true } : {}),
    ...(nowOpen === undefined ? {} : { openTurnId: nowOpen })
  }
}
