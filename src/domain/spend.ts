import type { AgentEvent } from "./events.js"
import { tokensOf } from "./prices.js"

/** What model requests spent: summed from `model.completed` events. */
export interface Spend {
  readonly requests: number
  readonly tokens: number
  /** The sum of the requests whose cost is known. */
  readonly costUsd: number
  /** Requests with no known cost (a model with no price): `costUsd` is then a lower bound. */
  readonly unpriced: number
}

export const noSpend: Spend = { requests: 0, tokens: 0, costUsd: 0, unpriced: 0 }

/** The spend after one more event (only `model.completed` counts). */
export const addSpend = (spend: Spend, event: AgentEvent): Spend => {
  if (event.type !== "model.completed") return spend
  const cost = event.payload.costUsd
  return {
    requests: spend.requests + 1,
    tokens: spend.tokens + tokensOf(event.payload.usage),
    costUsd: cost === undefined ? spend.costUsd : spend.costUsd + cost,
    unpriced: spend.unpriced + (cost === undefined ? 1 : 0)
  }
}

/** Dollars with four decimals (a cheap request costs fractions of a cent). */
export const formatUsd = (usd: number): string => `$${usd.toFixed(4)}`

/** `$0.0123`, `≥ $0.0123` when some requests had no price, `unknown` when none had one. */
export const formatCost = (spend: Spend): string =>
  spend.unpriced === 0 ? formatUsd(spend.costUsd) : spend.unpriced === spend.requests ? "unknown" : `≥ ${formatUsd(spend.costUsd)}`
