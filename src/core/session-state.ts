import type { AgentEvent, EventOf, QueuedMessage } from "../domain/events.js"
import type { PromptReceipt } from "../domain/host.js"
import type { PermissionMode } from "../domain/permissions.js"
import { type ConversationBuilder, type ConversationOptions, makeConversation } from "./conversation.js"
import { projectRulesKey, projectRulesValue } from "./project-rules-record.js"

export interface SessionHeader {
  readonly sessionId: string
  readonly cwd: string
  readonly client: string
  readonly createdAt: string
  readonly title?: string
  /** The model its turns ask: the last `session.model_changed`, else `session.created`'s. */
  readonly model?: string
  /** A subagent's session: who started it, and the agent definition it runs (its turns keep to it). */
  readonly parent?: SessionParent
}

export type SessionParent = NonNullable<EventOf<"session.created">["payload"]["parent"]>

/**
 * What the engine knows of a session: a fold of its committed events. It only advances
 * when an append succeeded, so a failed append leaves the next sequence where it was.
 */
export interface SessionState {
  readonly sessionId: string
  header: SessionHeader | undefined
  lastSequence: number
  /** The permission mode turns run under: the last `session.mode_changed`, else `default`. */
  mode: PermissionMode
  /** The turn that was started and not yet completed, if any. */
  openTurnId: string | undefined
  /** The inbox as of the last `inbox.updated`. */
  inbox: { readonly nextTurn: ReadonlyArray<QueuedMessage>; readonly nextStep: ReadonlyArray<QueuedMessage> }
  readonly conversation: ConversationBuilder
  /** The hash of each context source the log holds the text of, by `kind:id`; and the project rules last recorded. */
  readonly recordedSources: Map<string, string>
  /** Every turn with the sequences it started and ended at. */
  readonly turns: Array<{ readonly turnId: string; readonly start: number; end: number | undefined }>
  /** The tree of the session's last `checkpoint.recorded`, if any: a step's baseline is recorded only when the workspace differs from it. */
  lastCheckpoint: string | undefined
  /** What each prompt with a client's request id was answered: a second delivery gets the same. */
  readonly prompts: Map<string, PromptReceipt>
}

export const sourceKey = (kind: string, id: string) => `${kind}:${id}`

export const emptySessionState = (sessionId: string, options?: ConversationOptions): SessionState => ({
  sessionId,
  header: undefined,
  lastSequence: 0,
  mode: "default",
  openTurnId: undefined,
  inbox: { nextTurn: [], nextStep: [] },
  conversation: makeConversation(options),
  recordedSources: new Map(),
  turns: [],
  lastCheckpoint: undefined,
  prompts: new Map()
})

export const applyEvent = (state: SessionState, event: AgentEvent): void => {
  state.lastSequence = event.sequence
  switch (event.type) {
    case "session.created":
      state.header = {
        sessionId: event.sessionId,
        cwd: event.payload.cwd,
        client: event.payload.client,
        createdAt: event.timestamp,
        ...(event.payload.title === undefined ? {} : { title: event.payload.title }),
        ...(event.payload.model === undefined ? {} : { model: event.payload.model }),
        ...(event.payload.parent === undefined ? {} : { parent: event.payload.parent })
      }
      break
    case "session.mode_changed":
      state.mode = event.payload.mode
      break
    case "session.model_changed":
      if (state.header !== undefined) state.header = { ...state.header, model: event.payload.model }
      break
    case "session.renamed":
      if (state.header !== undefined) state.header = { ...state.header, title: event.payload.title }
      break
    case "turn.started":
      state.openTurnId = event.turnId
      state.turns.push({ turnId: event.turnId ?? "", start: event.sequence, end: undefined })
      break
    case "turn.completed": {
      state.openTurnId = undefined
      const turn = state.turns.findLast((t) => t.turnId === event.turnId)
      if (turn !== undefined) turn.end = event.sequence
      break
    }
    case "context.source":
      state.recordedSources.set(sourceKey(event.payload.kind, event.payload.id), event.payload.hash)
      break
    case "permission.project_rules":
      state.recordedSources.set(projectRulesKey(event.payload.file), projectRulesValue(event.payload.sha256, event.payload.trusted))
      break
    case "checkpoint.recorded":
      state.lastCheckpoint = event.payload.treeId
      break
    case "inbox.updated":
      state.inbox = { nextTurn: event.payload.nextTurn, nextStep: event.payload.nextStep }
      for (const [mode, list] of [["queue", event.payload.nextTurn], ["steer", event.payload.nextStep]] as const) {
        for (const message of list) if (!state.prompts.has(message.id)) state.prompts.set(message.id, { _tag: "Queued", messageId: message.id, mode })
      }
      break
    case "user.message":
      if (event.payload.requestId !== undefined && event.turnId !== undefined) {
        state.prompts.set(event.payload.requestId, { _tag: "Started", turnId: event.turnId, sequence: event.sequence })
      }
      break
    default:
      break
  }
  state.conversation.apply(event)
}
