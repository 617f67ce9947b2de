import * as Data from "effect/Data"
import * as Either from "effect/Either"
import type { AgentEvent } from "../domain/events.js"
import type { ConversationMessage } from "../domain/model.js"
import type { ContextSourceText } from "../services/ContextBuilder.js"
import type { TurnTerms } from "../domain/turn-terms.js"
import { assembleSystem, taskSection, withTasks } from "./context.js"
import { withOutputContract } from "./output-check.js"
import { withPlanMode } from "./plan-tool.js"
import { type ConversationOptions, defaultConversationOptions, makeConversation } from "./conversation.js"

/** The log refers to a context source whose text it does not hold (a truncated or edited log). */
export class MissingContextSource extends Data.TaggedError("MissingContextSource")<{
  readonly sequence: number
  readonly kind: string
  readonly id: string
}> {
  override get message() {
    return `context.built at sequence ${this.sequence} uses ${this.kind} ${this.id}, whose text is not in the log`
  }
}

export interface RebuiltRequest {
  /** The `context.built` event the request was recorded by. */
  readonly sequence: number
  readonly system: string
  readonly messages: ReadonlyArray<ConversationMessage>
  readonly tools: ReadonlyArray<string>
}

/**
 * Every model request of a session, rebuilt from its log alone: the source texts recorded in
 * `context.source`, the conversation folded from the events (compactions included) as it
 * stood at each `context.built`, and the task list in force then. Files that changed on disk
 * since do not matter.
 */
export const rebuildRequests = (
  events: Iterable<AgentEvent>,
  options: ConversationOptions = defaultConversationOptions
): Either.Either<ReadonlyArray<RebuiltRequest>, MissingContextSource> => {
  const conversation = makeConversation(options)
  const texts = new Map<string, ContextSourceText>()
  const requests: Array<RebuiltRequest> = []
  let terms: TurnTerms | undefined
  for (const event of events) {
    if (event.type === "turn.started") terms = event.payload.terms
    if (event.type === "context.source") {
      texts.set(event.payload.hash, { kind: event.payload.kind, id: event.payload.id, text: event.payload.text })
    }
    if (event.type === "context.built") {
      const sources: Array<ContextSourceText> = []
      for (const source of event.payload.sources) {
        const recorded = texts.get(source.hash)
        if (recorded === undefined) {
          return Either.left(new MissingContextSource({ sequence: event.sequence, kind: source.kind, id: source.id }))
        }
        sources.push(recorded)
      }
      const system = withTasks(withPlanMode(withOutputContract(assembleSystem(sources), terms), event.payload.tools), taskSection(conversation.tasks()?.todos))
      requests.push({ sequence: event.sequence, system, messages: conversation.snapshot(), tools: event.payload.tools })
    }
    conversation.apply(event)
  }
  return Either.right(requests)
}
