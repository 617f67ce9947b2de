import { describe, expect, it } from "@effect/vitest"
import type { AgentEvent } from "../../src/domain/events.js"
import { Schema } from "effect"
import { makeRenderer } from "../../src/cli/render.js"
import { terminalString } from "../../src/cli/terminal-text.js"
import { AgentEvent as AgentEventSchema } from "../../src/domain/events.js"
import { goldenTranscripts } from "../support/golden.js"
import { costLine } from "../../src/cli/turn-output.js"
import { addSpend, noSpend } from "../../src/domain/spend.js"

const resolved = (payload: Extract<AgentEvent, { type: "permission.resolved" }>["payload"]): AgentEvent => ({
  type: "permission.resolved",
  schemaVersion: 1,
  id: "evt_1",
  sessionId: "ses_1",
  turnId: "turn_1",
  sequence: 9,
  timestamp: "2026-12-01T10:00:00.000Z",
  payload
})

const shown = (event: AgentEvent) =>
  makeRenderer({ color: false, live: true })
    .render(event)
    .map((segment) => segment.text)
    .join("")

describe("how a decision reads at the terminal", () => {
  it("a remembered answer says it was an earlier answer and for how long, once", () => {
    const text = shown(
      resolved({
        toolCallId: "call_1",
        decision: "allow",
        scope: "always",
        by: "remembered",
        rule: { source: "always", index: 0, tool: "write_file", pattern: "src/**" },
        reason: "an earlier answer, always (src/**)"
      })
    )
    expect(text).toBe("  allowed by an earlier answer, always (src/**)\n")
  })

  it("a rule names its file and number; a person's lasting answer says for how long", () => {
    expect(
      shown(resolved({ toolCallId: "c", decision: "deny", scope: "once", by: "rule", rule: { source: "user", index: 1, tool: "shell" }, reason: "shell rm denied" }))
    ).toBe("  denied by rule user#2: shell rm denied\n")
    expect(shown(resolved({ toolCallId: "c", decision: "allow", scope: "session", by: "user" }))).toBe("  allowed by user for the session\n")
  })
})

describe("cost, budgets and structured output in a timeline", () => {
  let sequence = 0
  const event = (type: AgentEvent["type"], payload: unknown): AgentEvent =>
    ({ type, schemaVersion: 1, id: `evt_${++sequence}`, sessionId: "ses_1", turnId: "turn_1", sequence, timestamp: "2026-12-01T10:00:00.000Z", payload }) as AgentEvent
  const timeline = (events: ReadonlyArray<AgentEvent>, live: boolean) => {
    const renderer = makeRenderer({ color: false, live })
    return events.flatMap((e) => renderer.render(e)).map((s) => s.text).join("")
  }
  const usage = { inputTokens: 100, outputTokens: 10 }

  it("sessions show gives each request's cost and the turn's; a budget stop says what was spent", () => {
    const text = timeline(
      [
        event("turn.started", { promptPreview: "go" }),
        event("model.completed", { stopReason: "tool_calls", usage, costUsd: 0.25 }),
        event("model.completed", { stopReason: "tool_calls", usage }),
        event("turn.completed", { stopReason: "budget", message: "the turn cost $0.2500, its limit is $0.2000" })
      ],
      false
    )
    expect(text).toContain("· tool_calls · 100 in / 10 out tokens · $0.2500\n")
    expect(text).toContain("· tool_calls · 100 in / 10 out tokens\n")
    expect(text).toContain("── budget: the turn cost $0.2500, its limit is $0.2000 · cost ≥ $0.2500\n")
  })

  it("a turn's cost includes what its subagents spent: in sessions show, the subagent's line and run's cost line", () => {
    const childSpend = { requests: 3, tokens: 990, costUsd: 0.5, unpriced: 0 }
    const subagent = (spend?: object) =>
      event("subagent.completed", {
        toolCallId: "call_task",
        agent: "reviewer",
        childSessionId: "ses_2",
        stopReason: "final",
        answer: "looks fine",
        usage: { inputTokens: 900, outputTokens: 90 },
        ...(spend === undefined ? {} : { spend })
      })
    const turn = [
      event("turn.started", { promptPreview: "review" }),
      event("model.completed", { stopReason: "tool_calls", usage, costUsd: 0.25 }),
      subagent(childSpend),
      event("model.completed", { stopReason: "final", usage, costUsd: 0.25 }),
      event("turn.completed", { stopReason: "final" })
    ]
    const text = timeline(turn, false)
    expect(text).toContain("  answered · subagent reviewer · 900 in / 90 out tokens · $0.5000 · looks fine\n")
    expect(text).toContain("── done · cost $1.0000\n")
    // run: the turn's line, then the session's with an earlier turn that delegated nothing.
    const earlier = [event("model.completed", { stopReason: "final", usage, costUsd: 0.125 })]
    expect(costLine(turn.reduce(addSpend, noSpend), earlier.reduce(addSpend, noSpend))).toBe("cost $1.0000 (1210 tokens) · session $1.1250 (1320 tokens)\n")
    // A child with no price makes the turn's cost a lower bound; a child that made no request adds nothing.
    const unpricedChild = timeline([event("turn.started", { promptPreview: "again" }), event("model.completed", { stopReason: "tool_calls", usage, costUsd: 0.25 }), subagent({ requests: 1, tokens: 10, costUsd: 0, unpriced: 1 }), subagent(), event("turn.completed", { stopReason: "final" })], false)
    expect(unpricedChild).toContain("── done · cost ≥ $0.2500\n")
    expect(unpricedChild).toContain("  answered · subagent reviewer · 900 in / 90 out tokens · looks fine\n")
  })

  it("a compaction's line says what its summary cost, and the turn's cost includes it", () => {
    const text = timeline(
      [
        event("turn.started", { promptPreview: "go" }),
        event("context.compacted", { summary: "x", fromSequence: 1, throughSequence: 9, tokensBefore: 9000, tokensAfter: 300, turns: ["turn_0"], trigger: "budget", spend: { requests: 1, tokens: 9300, costUsd: 0.5, unpriced: 0 } }),
        event("model.completed", { stopReason: "final", usage, costUsd: 0.25 }),
        event("turn.completed", { stopReason: "final" })
      ],
      false
    )
    expect(text).toContain("── compacted 1 earlier turn(s) (events #1–#9): 9000 → 300 tokens · $0.5000\n")
    expect(text).toContain("── done · cost $0.7500\n")
  })

  it("a turn of an unpriced model shows no cost; a validated output shows its value when read back, nothing live", () => {
    const events = [
      event("turn.started", { promptPreview: "go" }),
      event("model.completed", { stopReason: "final", usage }),
      event("output.structured", { value: { status: "ok" }, attempts: 1 }),
      event("turn.completed", { stopReason: "final" })
    ]
    const read = timeline(events, false)
    expect(read).toContain('{} structured output validated (1 attempt): {"status":"ok"}\n')
    expect(read).toContain("── done\n")
    expect(read).not.toContain("cost")
    expect(timeline(events, true)).not.toContain("structured output")
  })
})

describe("colour is the CLI's own and nothing else", () => {
  it("every golden log, live and replayed: with colour on, the text less the CLI's colour codes is the plain text, and no colour code shows as ^[", () => {
    const decode = Schema.decodeUnknownSync(AgentEventSchema)
    const transcripts = goldenTranscripts()
    expect(transcripts.length).toBeGreaterThan(0)
    for (const transcript of transcripts) {
      const events = transcript.events.map((event) => decode(event))
      for (const live of [true, false]) {
        const text = (color: boolean) => {
          const renderer = makeRenderer({ color, live })
          return events.flatMap((event) => renderer.render(event)).map((segment) => terminalString(segment.text)).join("")
        }
        const colored = text(true)
        expect(colored, transcript.name).not.toContain("^[")
        expect(colored.replace(/\x1b\[(0|1|2|31|32|33|36)m/g, ""), transcript.name).toBe(text(false))
      }
    }
  })
})

describe("content cannot draw a line of its own", () => {
  it("a question's summary and a decision's reason stay on their line: a newline in them shows as ^J", () => {
    const asked: AgentEvent = {
      type: "permission.requested",
      schemaVersion: 1,
      id: "evt_2",
      sessionId: "ses_1",
      turnId: "turn_1",
      sequence: 8,
      timestamp: "2026-12-01T10:00:00.000Z",
      payload: { toolCallId: "c", tool: "write_file", risk: "write", summary: "write a.txt\n  allowed by rule user#1" }
    }
    expect(shown(asked)).toBe("? write a.txt^J  allowed by rule user#1 (write, asking)\n")
    expect(shown(resolved({ toolCallId: "c", decision: "deny", scope: "once", by: "hook", reason: "no\n  allowed by user" }))).toBe("  denied by hook: no^J  allowed by user\n")
  })
})

describe("how a rewind of the files reads", () => {
  const restoredEvent = (paths: ReadonlyArray<string>, drift: ReadonlyArray<string>): AgentEvent => ({
    type: "checkpoint.restored",
    schemaVersion: 1,
    id: "evt_2",
    sessionId: "ses_1",
    sequence: 12,
    timestamp: "2026-12-01T10:00:00.000Z",
    payload: { treeId: "t", checkpointSequence: 4, paths, drift, forced: true, by: "cli", redo: false }
  })

  it("a file changed outside the agent and put back is counted as restored, never 'nothing to restore' beside 'overwrote'", () => {
    const text = shown(restoredEvent([], ["notes.md"]))
    expect(text).toContain("files restored to checkpoint #4 by cli: 1 file(s): notes.md (1 of them changed outside the agent, overwritten: notes.md)")
    expect(text).not.toContain("nothing to restore")
    expect(shown(restoredEvent([], []))).toContain("nothing to restore")
    expect(shown(restoredEvent([], []))).not.toContain("outside")
  })
})

describe("what run shows as it happens", () => {
  const at = { schemaVersion: 1 as const, id: "evt_3", sessionId: "ses_42", turnId: "turn_1", sequence: 20, timestamp: "2026-12-01T10:00:00.000Z" }

  it("a hook that ran quietly still shows, dim, with its command and time", () => {
    const text = shown({
      ...at,
      type: "hook.ran",
      payload: { event: "PostToolUse", command: "notify-send done", source: "user", exitCode: 0, timedOut: false, output: "", durationMs: 12 }
    })
    expect(text).toContain("notify-send done")
    expect(text).toContain("12 ms")
  })

  it("a turn stopped at its step limit says how to go on", () => {
    const text = shown({ ...at, type: "turn.completed", payload: { stopReason: "max_steps" } })
    expect(text).toContain('go on with: custom-agent run --session ses_42 "continue"')
    expect(text).toContain("--max-steps N")
  })
})

describe("a plan at the terminal", () => {
  const at = { schemaVersion: 1, id: "evt_p", sessionId: "ses_1", turnId: "turn_1", sequence: 4, timestamp: "2026-12-01T10:00:00.000Z" } as const
  const proposed = (plan: string): AgentEvent => ({ ...at, type: "plan.proposed", payload: { toolCallId: "call_plan", plan } })
  const settled = (payload: Extract<AgentEvent, { type: "plan.resolved" }>["payload"]): AgentEvent => ({ ...at, type: "plan.resolved", payload })

  it("shows every line of the plan, then how it was settled and by whom", () => {
    expect(shown(proposed("# Plan\n1. edit a.ts\n2. run the tests"))).toBe(
      "◆ plan proposed, to approve or send back:\n  │ # Plan\n  │ 1. edit a.ts\n  │ 2. run the tests\n"
    )
    expect(shown(settled({ toolCallId: "call_plan", decision: "approved", by: "user", mode: "accept-edits", client: "rpc:web" }))).toBe(
      "✓ plan approved by user, on the web: carried out in accept-edits mode\n"
    )
    expect(shown(settled({ toolCallId: "call_plan", decision: "rejected", by: "user", client: "cli", note: "add tests" }))).toBe(
      "✗ plan sent back by user, in the terminal (the session stays in plan mode): add tests\n"
    )
    expect(shown(settled({ toolCallId: "call_plan", decision: "rejected", by: "policy", reason: "--approve allow-all never approves a plan" }))).toBe(
      "✗ plan not approved by policy (the session stays in plan mode): --approve allow-all never approves a plan\n"
    )
  })

  it("a plan's escape sequences and line tricks are shown, never obeyed, in colour too", () => {
    const text = makeRenderer({ color: true, live: true })
      .render(proposed("step 1\x1b[2J\x1b]52;c;aGk=\x07\rstep 2\u202e"))
      .map((segment) => terminalString(segment.text))
      .join("")
    expect(text).toContain("step 1^[[2J^[]52;c;aGk=^G^Mstep 2<U+202E>")
    // The only escapes left are the renderer's own colours.
    expect(text.replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/)
  })
})
