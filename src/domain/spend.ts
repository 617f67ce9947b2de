import * as Schema from "effect/Schema"
import type { AgentEvent } from "./events.js"
import type { Usage } from "./model.js"
import { tokensOf } from "./prices.js"

/**
 * What model requests spent: summed from `model.completed` events, the `spend` a
 * `subagent.completed` reports for a child's turn (its requests and its own children's), and
 * the summary requests a `context.compacted` reports.
 */
export const Spend = Schema.Struct({
  requests: Schema.Int.pipe(Schema.nonNegative()),
  /** Every token the requests processed: input, output and the prompt cache's. */
  tokens: Schema.Finite.pipe(Schema.nonNegative()),
  /** The sum of the requests whose cost is known. */
  costUsd: Schema.Finite.pipe(Schema.nonNegative()),
  /** Requests with no known cost (a model with no price): `costUsd` is then a lower bound. */
  unpriced: Schema.Int.pipe(Schema.nonNegative())
})
export type Spend = typeof Spend.Type

export const noSpend: Spend = { requests: 0, tokens: 0, costUsd: 0, unpriced: 0 }

export const sumSpend = (a: Spend, b: Spend): Spend => ({
  requests: a.requests + b.requests,
  tokens: a.tokens + b.tokens,
  costUsd: a.costUsd + b.costUsd,
  unpriced: a.unpriced + b.unpriced
})

/** One model request's spend: its usage, and its cost when the model has a price. */
export const requestSpend = (usage: Usage, costUsd: number | undefined): Spend => ({
  requests: 1,
  tokens: tokensOf(usage),
  costUsd: costUsd ?? 0,
  unpriced: costUsd === undefined ? 1 : 0
})

/**
 * The spend after one more event of a log: a `model.completed` counts its request, a
 * `subagent.completed` the child's turn it reports, a `context.compacted` its summary requests. The child's own log counts its requests
 * itself, so a session's total is its requests plus its children's, each counted once.
 */
export const addSpend = (spend: Spend, event: AgentEvent): Spend => {
  switch (event.type) {
    case "model.completed":
      return sumSpend(spend, requestSpend(event.payload.usage, event.payload.costUsd))
    case "subagent.completed":
    case "context.compacted":
      return event.payload.spend === undefined ? spend : sumSpend(spend, event.payload.spend)
    default:
      return spend
  }
}

/** Dollars with four decimals (a cheap request costs fractions of a cent). */
export const formatUsd = (usd: number): string => `$${usd.toFixed(4)}`

/** `$0.0123`, `≥ $0.0123` when some requests had no price, `unknown` when none had one. */
export const formatCost = (spend: Spend): string =>
  spend.unpriced === 0 ? formatUsd(spend.costUsd) : spend.unpriced === spend.requests ? "unknown" : `≥ ${formatUsd(spend.costUsd)}`

/** The cost worth showing beside a turn or a session: none when no request had a price (the tokens say what there is to say). */
export const shownCost = (spend: Spend | undefined): string | undefined =>
  spend === undefined || spend.unpriced === spend.requests ? undefined : formatCost(spend)
