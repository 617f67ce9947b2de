import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

/**
 * Appends committed by any process sharing the store, as wake-ups: a reader of a session's
 * log learns that there is more to read (the sequence it grew to), then reads the store. A
 * wake-up may be late or lost (a dropped connection), so readers also look now and then.
 */
export interface AppendFeedShape {
  /** Wake-ups for one session's appends, for as long as the scope lasts. */
  readonly follow: (sessionId: string) => Effect.Effect<Queue.Dequeue<number>, never, Scope.Scope>
}

export class AppendFeed extends Context.Tag("custom-agent/AppendFeed")<AppendFeed, AppendFeedShape>() {}
