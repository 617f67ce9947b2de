import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { EventStoreError } from "../domain/errors.js"
import { forkLog } from "../domain/fork.js"
import { invariantProblem } from "../domain/log-invariants.js"
import { RewindUnavailable } from "../domain/rewind.js"
import { describeProblem } from "../domain/session-log.js"
import type { EventStoreShape } from "../services/EventStore.js"
import type { IdsShape } from "../services/Ids.js"

export interface ForkInput {
  /** Default: the source's last event. */
  readonly atSequence?: number
  readonly by: string
}

/**
 * Writes a new session forked from `sourceId` (`forkLog`), all at once as an import is, and
 * gives its id. The source is read as it is: the caller closes a turn a dead process left open first.
 */
export const forkSession = (
  store: EventStoreShape,
  ids: IdsShape,
  sourceId: string,
  input: ForkInput
): Effect.Effect<string, EventStoreError | RewindUnavailable> =>
  Effect.gen(function* () {
    const source = Chunk.toReadonlyArray(yield* Stream.runCollect(store.replay(sourceId)))
    const last = source.at(-1)?.sequence ?? 0
    const atSequence = input.atSequence ?? last
    if (atSequence > last) return yield* new RewindUnavailable({ message: `no event ${atSequence}: the session's last is ${last}` })
    const sessionId = yield* ids.make("ses")
    // One id per event the fork can have: its header, session.forked, the copies, an emptied inbox, a reset mode and its title.
    const eventIds = yield* Effect.replicateEffect(ids.make("evt"), atSequence + 4)
    let next = 0
    const events = forkLog(source, {
      sessionId,
      atSequence,
      by: input.by,
      timestamp: new Date(yield* Clock.currentTimeMillis).toISOString(),
      newId: () => eventIds[next++] ?? ""
    })
    // Only a source imported unverified can break the engine's invariants; its fork would too.
    const broken = invariantProblem(events)
    if (broken !== undefined) return yield* new RewindUnavailable({ message: `the fork would break the engine's invariants (${describeProblem(broken)})` })
    yield* store.appendAll(events)
    return sessionId
  })
