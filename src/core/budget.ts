import * as Option from "effect/Option"
import type { Usage } from "../domain/model.js"
import { tokensOf } from "../domain/prices.js"
import type { TurnTerms } from "../domain/turn-terms.js"
import type { TurnOutcome } from "./turn.js"

/** What a turn's model requests have spent so far, checked against its terms at each step boundary. */
export interface TurnBudget {
  readonly record: (usage: Usage, costUsd: number | undefined) => void
  /** `budget` once a limit is reached (or a cost limit cannot be checked): the turn stops before its next request. */
  readonly exceeded: () => Option.Option<TurnOutcome>
}

const usd = (n: number) => `$${n.toFixed(4)}`

export const turnBudget = (terms: TurnTerms | undefined, modelId: string): TurnBudget => {
  let cost = 0
  let tokens = 0
  let unpriced = false
  return {
    record: (usage, costUsd) => {
      tokens += tokensOf(usage)
      if (costUsd === undefined) unpriced = true
      else cost += costUsd
    },
    exceeded: () => {
      if (terms === undefined) return Option.none()
      const { maxCostUsd, maxTurnTokens } = terms
      if (maxTurnTokens !== undefined && tokens >= maxTurnTokens) {
        return Option.some({ stopReason: "budget", message: `the turn used ${tokens} tokens, its limit is ${maxTurnTokens}` })
      }
      if (maxCostUsd === undefined) return Option.none()
      // Without a price a cost limit cannot be kept: stop rather than spend blind.
      if (unpriced) {
        return Option.some({
          stopReason: "budget",
          message: `the cost of ${modelId} is unknown (no price in the table or the settings), so the limit of ${usd(maxCostUsd)} cannot be checked`
        })
      }
      return cost >= maxCostUsd
        ? Option.some({ stopReason: "budget", message: `the turn cost ${usd(cost)}, its limit is ${usd(maxCostUsd)}` })
        : Option.none()
    }
  }
}
