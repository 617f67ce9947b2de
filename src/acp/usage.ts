import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable"
import type { AgentEvent } from "../domain/events.js"
import { tokensOf } from "../domain/prices.js"
import { addSpend, noSpend, type Spend } from "../domain/spend.js"

/** A session's spend and context fill, from its log up to `through`. */
export interface UsageTally {
  /** The last sequence counted. */
  readonly through: number
  /** Every request of the session so far, its subagents' and summaries' included. */
  readonly spend: Spend
  /** The tokens of the last model request: its input (cache included) and its answer, what the context holds now. */
  readonly used?: number
  /** The tokens a request may use before older turns are compacted (the last `context.built`'s budget). */
  readonly size?: number
}

export const emptyTally: UsageTally = { through: 0, spend: noSpend }

/** The tally after one more event of the log (an event already counted changes nothing). */
export const addUsage = (tally: UsageTally, event: AgentEvent): UsageTally => {
  if (event.sequence <= tally.through) return tally
  const counted = { ...tally, through: event.sequence, spend: addSpend(tally.spend, event) }
  switch (event.type) {
    case "model.completed":
      return { ...counted, used: tokensOf(event.payload.usage) }
    case "context.built":
      return { ...counted, size: event.payload.budget }
    case "context.compacted":
      return { ...counted, used: event.payload.tokensAfter }
    default:
      return counted
  }
}


/**
 * The tally as ACP's `usage_update`: none before a request has been made (nothing to show yet).
 * The cost is left out when no request had a price; with some unpriced it is a lower bound.
 */
export const usageUpdate = (tally: UsageTally): SessionUpdate | undefined => {
  if (tally.used === undefined || tally.size === undefined) return undefined
  const { spend } = tally
  return {
    sessionUpdate: "usage_update",
    used: tally.used,
    size: tally.size,
    ...(spend.requests === 0 || spend.unpriced === spend.requests ? {} : { cost: { amount: spend.costUsd, currency: "USD" } })
  }
}
