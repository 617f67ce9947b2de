import * as Option from "effect/Option"
import type { AgentEvent } from "../domain/events.js"
import { addSpend, formatUsd, noSpend, type Spend, sumSpend } from "../domain/spend.js"
import type { TurnTerms } from "../domain/turn-terms.js"
import type { TurnOutcome } from "./turn.js"

/** What a turn's committed events spent: its own requests (summaries included) and its subagents' as they spend. */
export interface TurnSpend {
  /** Each event the turn commits (other events add nothing). */
  readonly observe: (event: AgentEvent) => void
  /** A request of a subagent below this turn (at any depth), as its own turn commits it. */
  readonly descendant: (spend: Spend) => void
  readonly own: () => Spend
  /** Every request of the turn's subagents so far, a child still running included. */
  readonly delegated: () => Spend
}

/**
 * A turn's spend; `above` is the spend of the turn that delegated this one (a `task` child):
 * each request counts there too the moment it commits, so a limit of any turn up the tree
 * sees a running child's spend, not only a finished one's. A `subagent.completed` then adds
 * nothing (its `spend` is what was counted already).
 */
export const turnSpend = (above?: TurnSpend): TurnSpend => {
  let own = noSpend
  let delegated = noSpend
  const descendant = (spend: Spend) => {
    delegated = sumSpend(delegated, spend)
    above?.descendant(spend)
  }
  return {
    observe: (event) => {
      if (event.type === "subagent.completed") return
      const spend = addSpend(noSpend, event)
      own = sumSpend(own, spend)
      above?.descendant(spend)
    },
    descendant,
    own: () => own,
    delegated: () => delegated
  }
}

/** A turn's spend checked against its terms at each step boundary. */
export interface TurnBudget {
  /** `budget` once a limit is reached (or a cost limit cannot be checked): the turn stops before its next request. */
  readonly exceeded: () => Option.Option<TurnOutcome>
}

export const turnBudget = (terms: TurnTerms | undefined, modelId: string, spent: TurnSpend): TurnBudget => ({
    exceeded: () => {
      if (terms === undefined) return Option.none()
      const own = spent.own()
      const children = spent.delegated()
      const total = sumSpend(own, children)
      const { maxCostUsd, maxTurnTokens } = terms
      if (maxTurnTokens !== undefined && total.tokens >= maxTurnTokens) {
        const theirs = children.requests === 0 ? "" : ` (${children.tokens} by its subagents)`
        return Option.some({ stopReason: "budget", message: `the turn used ${total.tokens} tokens${theirs}, its limit is ${maxTurnTokens}` })
      }
      if (maxCostUsd === undefined) return Option.none()
      // Without a price a cost limit cannot be kept: stop rather than spend blind.
      if (own.unpriced > 0) {
        return Option.some({
          stopReason: "budget",
          message: `the cost of ${modelId} is unknown (no price in the table or the settings), so the limit of ${formatUsd(maxCostUsd)} cannot be checked`
        })
      }
      if (children.unpriced > 0) {
        return Option.some({
          stopReason: "budget",
          message: `the cost of ${children.unpriced} of its subagents' model request(s) is unknown (no price in the table or the settings), so the limit of ${formatUsd(maxCostUsd)} cannot be checked`
        })
      }
      const theirs = children.requests === 0 ? "" : ` (${formatUsd(children.costUsd)} by its subagents)`
      return total.costUsd >= maxCostUsd
        ? Option.some({ stopReason: "budget", message: `the turn cost ${formatUsd(total.costUsd)}${theirs}, its limit is ${formatUsd(maxCostUsd)}` })
        : Option.none()
    }
})
