import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { AgentEvent } from "../../src/domain/events.js"
import { addSpend, formatCost, noSpend, shownCost, Spend, sumSpend } from "../../src/domain/spend.js"

const decodeEvent = Schema.decodeUnknownSync(AgentEvent)
let sequence = 0
const event = (type: string, payload: object, sessionId = "ses_parent") =>
  decodeEvent({ id: `evt_${++sequence}`, schemaVersion: 1, sessionId, turnId: "turn_1", sequence, timestamp: "2025-01-01T00:00:00.000Z", type, payload })

const completed = (inputTokens: number, costUsd?: number, sessionId?: string) =>
  event("model.completed", { stopReason: "final", usage: { inputTokens, outputTokens: 10, cacheReadTokens: 5 }, ...(costUsd === undefined ? {} : { costUsd }) }, sessionId)

const subagentCompleted = (spend?: Spend) =>
  event("subagent.completed", {
    toolCallId: "call_1",
    agent: "reviewer",
    childSessionId: "ses_child",
    stopReason: "final",
    answer: "fine",
    usage: { inputTokens: 200, outputTokens: 20 },
    ...(spend === undefined ? {} : { spend })
  })

const total = (events: ReadonlyArray<AgentEvent>) => events.reduce(addSpend, noSpend)

describe("Spend", () => {
  it("sums model requests: every token they processed, the priced ones' cost, and how many had no price", () => {
    expect(total([completed(100, 0.5), completed(200), event("model.delta", { text: "x" })])).toEqual({ requests: 2, tokens: 330, costUsd: 0.5, unpriced: 1 })
  })

  it("counts a subagent's reported spend into the log that delegated; a subagent.completed without one adds nothing", () => {
    const child = { requests: 3, tokens: 900, costUsd: 0.25, unpriced: 0 }
    expect(total([completed(100, 0.5), subagentCompleted(child), subagentCompleted()])).toEqual({ requests: 4, tokens: 1015, costUsd: 0.75, unpriced: 0 })
    expect(addSpend(noSpend, subagentCompleted())).toBe(noSpend)
  })

  it("counts the summary requests a compaction reports; one recorded before summaries were priced adds nothing", () => {
    const compacted = (spend?: Spend) =>
      event("context.compacted", { summary: "x", throughSequence: 3, tokensBefore: 900, tokensAfter: 40, turns: ["turn_0"], trigger: "budget", ...(spend === undefined ? {} : { spend }) })
    expect(total([completed(100, 0.5), compacted({ requests: 2, tokens: 1_800, costUsd: 0.03, unpriced: 0 }), compacted()])).toEqual({
      requests: 3,
      tokens: 1_915,
      costUsd: 0.53,
      unpriced: 0
    })
  })

  it("counts each request once across a parent's log and its child's: the child's own log holds only its requests", () => {
    // The child's log: its two requests. Its tally reports exactly their sum to the parent.
    const childLog = [completed(100, 0.125, "ses_child"), completed(50, 0.0625, "ses_child")]
    const childTotal = total(childLog)
    const parentOwn = [completed(10, 0.01), completed(20, 0.02)]
    const parentTotal = total([...parentOwn, subagentCompleted(childTotal)])
    expect(childTotal).toEqual({ requests: 2, tokens: 180, costUsd: 0.1875, unpriced: 0 })
    expect(parentTotal).toEqual(sumSpend(total(parentOwn), childTotal))
    expect(parentTotal.requests).toBe(4)
  })

  it("says a cost exactly, as a lower bound when some requests had no price, and shows none when no request had one", () => {
    expect(formatCost({ requests: 2, tokens: 10, costUsd: 0.0123, unpriced: 0 })).toBe("$0.0123")
    expect(formatCost({ requests: 2, tokens: 10, costUsd: 0.0123, unpriced: 1 })).toBe("≥ $0.0123")
    expect(formatCost({ requests: 2, tokens: 10, costUsd: 0, unpriced: 2 })).toBe("unknown")
    expect(shownCost({ requests: 2, tokens: 10, costUsd: 0.0123, unpriced: 1 })).toBe("≥ $0.0123")
    expect(shownCost({ requests: 2, tokens: 10, costUsd: 0, unpriced: 2 })).toBeUndefined()
    expect(shownCost(noSpend)).toBeUndefined()
    expect(shownCost(undefined)).toBeUndefined()
  })

  it("is a schema: a subagent.completed with a malformed spend is refused, one written before spends were reported still reads", () => {
    const decode = Schema.decodeUnknownEither(Spend)
    expect(Either.isRight(decode({ requests: 1, tokens: 10, costUsd: 0.5, unpriced: 0 }))).toBe(true)
    expect(Either.isLeft(decode({ requests: 1.5, tokens: 10, costUsd: 0.5, unpriced: 0 }))).toBe(true)
    expect(Either.isLeft(decode({ requests: 1, tokens: 10, costUsd: -1, unpriced: 0 }))).toBe(true)
    expect(Either.isLeft(decode({ requests: 1, tokens: 10, costUsd: 0.5 }))).toBe(true)
    expect(() => subagentCompleted({ requests: 1, tokens: 10, costUsd: Number.NaN, unpriced: 0 })).toThrow()
    expect(subagentCompleted().payload).not.toHaveProperty("spend")
  })
})
