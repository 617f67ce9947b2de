import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Ids } from "../services/Ids.js"

/** Time-ordered random ids: `ses_<ms base36><random>`, so listings sort by creation. */
export const IdsLive = Layer.succeed(Ids, {
  make: (kind) =>
    Effect.sync(() => `${kind}_${Date.now().toString(36).padStart(9, "0")}${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`)
})

/** Counter-based ids (`evt_1`, `evt_2`, ...) for tests and golden transcripts. */
export const IdsDeterministic = Layer.sync(Ids, () => {
  const counters = new Map<string, number>()
  return {
    make: (kind) =>
      Effect.sync(() => {
        const next = (counters.get(kind) ?? 0) + 1
        counters.set(kind, next)
        return `${kind}_${next}`
      })
  }
})
