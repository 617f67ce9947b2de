import * as Effect from "effect/Effect"
import type { TurnLeases } from "../../services/EventStore.js"

/**
 * Leases in this process's memory, for stores whose data no other process uses (memory; JSONL,
 * whose directory has one writer): a holder here never dies without its scope releasing the
 * lease, so there is nothing to wait for or expire.
 */
export const makeLocalLeases = (): TurnLeases => {
  const held = new Set<string>()
  return {
    hold: (sessionId) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          if (held.has(sessionId)) return false
          held.add(sessionId)
          return true
        }),
        (taken) => (taken ? Effect.sync(() => held.delete(sessionId)) : Effect.void)
      ),
    live: Effect.sync(() => new Set(held))
  }
}
