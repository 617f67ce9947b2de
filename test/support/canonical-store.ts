import { Effect, Either, Layer } from "effect"
import { decodeEvent } from "../../src/domain/decode.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { EventStore } from "../../src/services/EventStore.js"

/**
 * What the engine no longer checks on each commit (about a tenth of a CLI step's CPU): every
 * event appended is one the catalogue decodes, and already in the catalogue's field order,
 * so what is written is byte for byte what a reader decodes. A failure is a defect naming
 * the event.
 */
export const canonicalProblem = (event: AgentEvent): string | undefined => {
  const decoded = decodeEvent(event)
  if (Either.isLeft(decoded)) return `the engine built an invalid ${event.type} event: ${decoded.left.message}`
  const written = JSON.stringify(event)
  const read = JSON.stringify(decoded.right)
  return written === read ? undefined : `the engine built a ${event.type} event out of the catalogue's order: ${written} reads back as ${read}`
}

const check = (events: ReadonlyArray<AgentEvent>) =>
  Effect.suspend(() => {
    for (const event of events) {
      const problem = canonicalProblem(event)
      if (problem !== undefined) return Effect.dieMessage(problem)
    }
    return Effect.void
  })

/** The store, with every append checked by `canonicalProblem` first. */
export const checkingCanonical = <E, R>(store: Layer.Layer<EventStore, E, R>): Layer.Layer<EventStore, E, R> =>
  Layer.effect(
    EventStore,
    Effect.map(EventStore, (inner) =>
      EventStore.of({
        ...inner,
        append: (event) => Effect.zipRight(check([event]), inner.append(event)),
        appendAll: (events) => Effect.zipRight(check(events), inner.appendAll(events))
      })
    )
  ).pipe(Layer.provide(store))
