import type { AgentEvent } from "../../domain/events.js"
import type { Usage } from "../../domain/model.js"
import { addSpend, noSpend, shownCost, type Spend } from "../../domain/spend.js"
import { paint, type TerminalText, term } from "../terminal-text.js"
import { formatDuration, formatTokens } from "./units.js"
import { fitEnd, textWidth } from "./width.js"

/** Tokens summed over requests; the cache's counted as 0 when a provider did not say. */
export interface TokenCounts {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cacheReadTokens: number
  readonly cacheWriteTokens: number
}

/** What a turn did, summed from its events: what its summary line says. */
export interface TurnTally {
  /** Milliseconds since the epoch, from the events' timestamps (a replay summarizes a turn the same way). */
  readonly startedAt?: number
  readonly endedAt?: number
  /** Model requests of the turn itself. */
  readonly steps: number
  /** Tokens of its requests and of its subagents' turns. */
  readonly usage: TokenCounts
  /** Whether any request reported its prompt cache (a provider that says nothing has no `cached` to show). */
  readonly cacheKnown: boolean
  /** What it cost: its requests, its subagents', its compaction's. */
  readonly spend: Spend
  /** How it ended; absent while it runs. */
  readonly stopReason?: string
}

export const emptyTally: TurnTally = {
  steps: 0,
  usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
  cacheKnown: false,
  spend: noSpend
}

const added = (tally: TurnTally, usage: Usage): Pick<TurnTally, "usage" | "cacheKnown"> => ({
  usage: {
    inputTokens: tally.usage.inputTokens + usage.inputTokens,
    outputTokens: tally.usage.outputTokens + usage.outputTokens,
    cacheReadTokens: tally.usage.cacheReadTokens + (usage.cacheReadTokens ?? 0),
    cacheWriteTokens: tally.usage.cacheWriteTokens + (usage.cacheWriteTokens ?? 0)
  },
  cacheKnown: tally.cacheKnown || usage.cacheReadTokens !== undefined || usage.cacheWriteTokens !== undefined
})

/** The tally after one more event of the turn; a `turn.started` begins a new one. */
export const tallyEvent = (tally: TurnTally, event: AgentEvent): TurnTally => {
  switch (event.type) {
    case "turn.started":
      return { ...emptyTally, startedAt: Date.parse(event.timestamp) }
    case "model.completed":
      return { ...tally, ...added(tally, event.payload.usage), steps: tally.steps + 1, spend: addSpend(tally.spend, event) }
    case "subagent.completed":
      return { ...tally, ...added(tally, event.payload.usage), spend: addSpend(tally.spend, event) }
    case "context.compacted":
      return { ...tally, spend: addSpend(tally.spend, event) }
    case "turn.completed":
      return { ...tally, endedAt: Date.parse(event.timestamp), stopReason: event.payload.stopReason }
    default:
      return tally
  }
}

export interface SummaryOptions {
  readonly width: number
  readonly color: boolean
  /** For a turn that has not ended: the time its duration runs to. */
  readonly now?: number
}

/**
 * The last line of a turn: how it ended, how long it took, its steps, its tokens (in / out, and
 * what the prompt cache served when the provider says) and its cost when the model has a
 * price, in at most `width` columns: the cache, then the steps, then the duration give way first.
 */
export const turnSummary = (tally: TurnTally, options: SummaryOptions): TerminalText => {
  const [dim, red, yellow] = [paint(options.color, "2"), paint(options.color, "31"), paint(options.color, "33")]
  const end = tally.endedAt ?? options.now
  const stop = tally.stopReason ?? "running"
  const word = stop === "final" ? "done" : stop.replace(/_/g, " ")
  const cost = shownCost(tally.spend)
  const { inputTokens, outputTokens, cacheReadTokens } = tally.usage
  /** Each part with the order it gives way in (higher first); undefined parts are left out. */
  const parts: ReadonlyArray<readonly [string | undefined, number]> = [
    [tally.startedAt === undefined || end === undefined ? undefined : formatDuration(Math.max(0, end - tally.startedAt)), 2],
    [`${tally.steps} step${tally.steps === 1 ? "" : "s"}`, 3],
    [`${formatTokens(inputTokens)} in / ${formatTokens(outputTokens)} out tokens`, 0],
    [tally.cacheKnown ? `${formatTokens(cacheReadTokens)} cached` : undefined, 4],
    [cost, 1]
  ]
  const present = parts.filter((part): part is readonly [string, number] => part[0] !== undefined)
  const head = `── ${word}`
  const text = (kept: ReadonlyArray<readonly [string, number]>) => [head, ...kept.map(([t]) => t)].join(" · ")
  let kept = present
  for (let level = 4; level >= 1 && textWidth(text(kept)) > options.width; level--) kept = kept.filter(([, order]) => order < level)
  const style = stop === "final" || stop === "running" ? dim : stop === "error" ? red : yellow
  if (textWidth(head) >= options.width) return style(fitEnd(head, options.width))
  return term`${style(head)}${dim(fitEnd(text(kept).slice(head.length), options.width - textWidth(head)))}`
}
