import * as Option from "effect/Option"
import type { AgentEvent } from "../domain/events.js"
import { addSpend, formatUsd, noSpend, type Spend, sumSpend } from "../domain/spend.js"
import type { TurnTerms } from "../domain/turn-terms.js"
import type { TurnOutcome } from "./turn.js"

/**
 * What a turn has spent so far, its own model requests (summaries included) and what its subagents reported,
 * checked against its terms at each step boundary.
 */
export interface TurnBudget {
  /** Each event the turn commits: its model requests and its compactions' summary requests count. */
  readonly observe: (event: AgentEvent) => void
  /** `budget` once a limit is reached (or a cost limit cannot be checked): the turn stops before its next request. */
  readonly exceeded: () => Option.Option<TurnOutcome>
}

/**
 * `delegated` is read at each boundary: the spend of the turn's subagents whose
 * `subagent.completed` is recorded (a child still running counts once it ends).
 */
export const turnBudget = (terms: TurnTerms | undefined, modelId: string, delegated: () => Spend = () => noSpend): TurnBudget => {
  let own = noSpend
  return {
    observe: (event) => {
      // A subagent's spend arrives through `delegated`, from the parent's own record of it.
      if (event.type === "model.completed" || event.type === "context.compacted") own = addSpend(own, event)
    },
    exceeded: () => {
      if (terms === undefined) return Option.none()
      const children = delegated()
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
  }
}
