import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { sessionIdProblem } from "../../domain/ids.js"
import type { EventStoreShape } from "../../services/EventStore.js"

/**
 * A store that refuses a session id breaking the one rule (`src/domain/ids.ts`) with a typed
 * `InvalidSessionId` before its storage sees it: a database would hold `""` or `../../x` that
 * a file store cannot, and the stores must agree. A batch is one session's (the stores check
 * that), so its first event's id stands for all of them.
 */
export const checkedIds = (store: EventStoreShape): EventStoreShape => ({
  ...store,
  append: (event) => {
    const invalid = sessionIdProblem(event.sessionId)
    return invalid === undefined ? store.append(event) : Effect.fail(invalid)
  },
  appendAll: (events) => {
    const invalid = events[0] === undefined ? undefined : sessionIdProblem(events[0].sessionId)
    return invalid === undefined ? store.appendAll(events) : Effect.fail(invalid)
  },
  replay: (sessionId, afterSequence) => {
    const invalid = sessionIdProblem(sessionId)
    return invalid === undefined ? store.replay(sessionId, afterSequence) : Stream.fail(invalid)
  },
  head: (sessionId) => {
    const invalid = sessionIdProblem(sessionId)
    return invalid === undefined ? store.head(sessionId) : Effect.fail(invalid)
  },
  deleteSession: (sessionId) => {
    const invalid = sessionIdProblem(sessionId)
    return invalid === undefined ? store.deleteSession(sessionId) : Effect.fail(invalid)
  }
})
