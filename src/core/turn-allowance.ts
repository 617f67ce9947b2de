import * as Option from "effect/Option"
import type { TurnBudget } from "./budget.js"
import type { TurnOutcome } from "./turn.js"

/**
 * What a turn may still do, and what every turn above it in a delegation tree may: a child
 * never outruns its parent. Each model step of a subagent is taken from its own limit and
 * from every ancestor's, so its limit is in effect the smaller of its own (its definition's
 * `maxSteps`) and what the turn that delegated it has left, and its steps are that turn's
 * too. A spending limit of an ancestor (its own requests and every descendant's, counted as
 * they commit: `turnSpend`) stops the child before its next request as it stops the ancestor.
 */
export interface TurnAllowance {
  /** Before this turn's `step`-th request: the outcome that ends the turn instead; else the step is counted here and above. */
  readonly beforeStep: (step: number) => Option.Option<TurnOutcome>
  /** Before a request of a turn below this one: why it may not make it; else it is counted here and above. */
  readonly beforeDescendantStep: () => Option.Option<TurnOutcome>
}

const fromAbove = (outcome: TurnOutcome): TurnOutcome => ({
  stopReason: outcome.stopReason,
  message: `the turn that delegated this one has no room left (${outcome.message ?? outcome.stopReason})`
})

/** `maxSteps` and `budget` are this turn's own; `above` is the allowance of the turn that delegated it (a `task` child). */
export const turnAllowance = (maxSteps: number, budget: TurnBudget, above?: TurnAllowance): TurnAllowance => {
  let used = 0
  /** `spendChecked`: a turn's own first request is never refused for spend (nothing was spent yet); a descendant's is. */
  const take = (spendChecked: boolean, forDescendant: boolean): Option.Option<TurnOutcome> => {
    const own =
      used >= maxSteps
        ? Option.some<TurnOutcome>({ stopReason: "max_steps", message: `the turn reached its limit of ${maxSteps} model steps` })
        : spendChecked
          ? budget.exceeded()
          : Option.none()
    if (Option.isSome(own)) return forDescendant ? Option.some(fromAbove(own.value)) : own
    // An ancestor's answer is already phrased for a turn below it.
    const ancestors = above === undefined ? Option.none() : above.beforeDescendantStep()
    if (Option.isSome(ancestors)) return ancestors
    used++
    return Option.none()
  }
  return {
    beforeStep: (step) => take(step > 1, false),
    beforeDescendantStep: () => take(true, true)
  }
}
