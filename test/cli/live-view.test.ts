import { describe, expect, it } from "@effect/vitest"
import { makeLiveView } from "../../src/cli/live-view.js"
import { terminalString } from "../../src/cli/terminal-text.js"
import { makeProgress } from "../../src/cli/view/progress.js"
import { textWidth } from "../../src/cli/view/width.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { noSpend } from "../../src/domain/spend.js"

let sequence = 0
const event = (type: AgentEvent["type"], payload: unknown, timestamp = "2026-12-01T10:00:00.000Z"): AgentEvent =>
  ({ type, schemaVersion: 1, id: `evt_${++sequence}`, sessionId: "ses_1", turnId: "turn_1", sequence, timestamp, payload }) as AgentEvent

const deltas = (text: string) => text.split(/(?<= )/).map((piece) => event("model.delta", { text: piece }))

const deepPath = `src/${"nested-folder/".repeat(8)}target.ts`

const turn = [
  event("turn.started", { promptPreview: "go" }, "2026-12-01T10:00:00.000Z"),
  event("model.thinking_delta", { text: "Let me look." }),
  ...deltas("## Reading\n\nI will **read** the file.\n\n"),
  event("model.tool_call_requested", { toolCallId: "c1", name: "read_file", input: { path: deepPath } }),
  event("model.completed", { stopReason: "tool_calls", usage: { inputTokens: 1000, outputTokens: 50 }, costUsd: 0.01 }),
  event("tool.started", { toolCallId: "c1", name: "read_file" }),
  event("tool.completed", { toolCallId: "c1", output: "contents", isError: false, durationMs: 4 }),
  event("model.tool_call_requested", { toolCallId: "c2", name: "shell", input: { command: "rm -rf build" } }),
  event("permission.requested", { toolCallId: "c2", tool: "shell", risk: "execute", summary: "rm -rf build" }),
  event("permission.resolved", { toolCallId: "c2", decision: "deny", scope: "once", by: "user" }),
  event("tool.completed", { toolCallId: "c2", output: "Permission denied (the user).", isError: true, durationMs: 0 }),
  ...deltas("Done:\n\n- one\n- two"),
  event("model.completed", { stopReason: "final", usage: { inputTokens: 1100, outputTokens: 20 }, costUsd: 0.01 }),
  event("turn.completed", { stopReason: "final" }, "2026-12-01T10:00:03.000Z")
]

describe("run's view on a terminal", () => {
  it("the answer as Markdown, each tool call as one fitted line, the summary at the end", () => {
    const view = makeLiveView({ color: { out: false, err: false }, columns: () => 60 })
    const segments = turn.flatMap((e) => view.render(e))
    const out = segments.filter((s) => s.channel === "out").map((s) => terminalString(s.text)).join("")
    const err = segments.filter((s) => s.channel === "err").map((s) => terminalString(s.text)).join("")
    expect(out).toBe("Reading\n\nI will read the file.\nDone:\n\n- one\n- two\n")
    expect(err).toContain("thinking: Let me look.\n")
    expect(err).toContain("  ✓ read_file …/nested-folder/nested-folder/target.ts · 4 ms\n")
    expect(err).toContain("  ✗ shell rm -rf build · denied\n")
    expect(err).not.toContain("⚙")
    for (const line of err.split("\n")) expect(textWidth(line)).toBeLessThanOrEqual(60)
    const closing = view.closing("ses_1", noSpend).text
    // At 60 columns the steps give way.
    expect(closing).toBe("── done · 3.0 s · 2.1k in / 70 out tokens · $0.0200\nsession ses_1\n")
  })

  it("the thinking's open line is ended before the answer's first block", () => {
    const view = makeLiveView({ color: { out: false, err: false }, columns: () => 80 })
    const segments = [event("model.thinking_delta", { text: "hmm" }), ...deltas("Answer.\n\nMore")].flatMap((e) => view.render(e))
    expect(segments.map((s) => `${s.channel}:${terminalString(s.text)}`)).toEqual(["err:thinking: hmm", "err:\n", "out:Answer.\n"])
  })

  it("the spinner says what is awaited, and leaves the terminal to a question", () => {
    const drawn: Array<string> = []
    let erased = 0
    const progress = makeProgress({ color: false, width: () => 80, now: () => 0, draw: (line) => drawn.push(line.text), erase: () => erased++, canDraw: () => true, intervalMs: 0 })
    const view = makeLiveView({ color: { out: false, err: false }, columns: () => 80, progress })
    const frames: Array<string> = []
    for (const e of turn) {
      view.render(e)
      const before = drawn.length
      progress.tick()
      frames.push(drawn.length > before ? (drawn.at(-1) ?? "").replace(/^\S+ /, "").replace(/ \d+s$/, "") : "-")
    }
    expect(frames).toContain("thinking")
    expect(frames).toContain("writing")
    expect(frames.find((frame) => frame.startsWith("read_file "))).toMatch(/^read_file src\/nested-folder\/.*…$/)
    // From the question until its answer nothing is drawn; after the turn, nothing either.
    expect(frames[turn.findIndex((e) => e.type === "permission.requested")]).toBe("-")
    expect(frames.at(-1)).toBe("-")
    view.close()
    expect(erased).toBeGreaterThan(0)
  })

  it("a running command's last lines show under the spinner, fitted and safe, and go when its result prints", () => {
    const drawn: Array<string> = []
    const progress = makeProgress({ color: false, width: () => 40, now: () => 0, draw: (lines) => drawn.push(lines.text), erase: () => undefined, canDraw: () => true, intervalMs: 0 })
    const view = makeLiveView({ color: { out: false, err: false }, columns: () => 40, progress })
    const data = { _tag: "shell", command: "npm test", exitCode: 0, timedOut: false, truncated: false }
    const events = [
      event("model.tool_call_requested", { toolCallId: "sh", name: "shell", input: { command: "npm test" } }),
      event("tool.started", { toolCallId: "sh", name: "shell" }),
      event("tool.output", { toolCallId: "sh", text: "one\ntwo\nthree\nfour\nfive\nsix\n" }),
      event("tool.output", { toolCallId: "sh", text: `\x1b[31mred\x1b[0m\rover ${"long ".repeat(20)}\npartial` })
    ]
    const segments = events.flatMap((e) => {
      const printed = view.render(e)
      progress.tick()
      return printed
    })
    // Nothing is printed while the command runs: its lines are drawn in place under the spinner.
    expect(segments.map((s) => terminalString(s.text)).join("")).toBe("")
    const frame = drawn.at(-1) ?? ""
    const lines = frame.split("\n")
    expect(lines[0]).toMatch(/^\S+ shell npm test 0s$/)
    expect(lines.slice(1)).toEqual(["  four", "  five", "  six", `  ^[[31mred^[[0m^Mover long long long …`, "  partial"])
    for (const line of lines) expect(textWidth(line)).toBeLessThan(40)
    expect(frame).not.toMatch(/[\x1b\r]/)
    const done = view.render(event("tool.completed", { toolCallId: "sh", output: "six\n[exit code 0]", isError: false, durationMs: 900, data }))
    expect(terminalString(done.at(-1)?.text ?? "")).toContain("✓ shell npm test · exit 0")
    drawn.length = 0
    progress.tick()
    expect(drawn.at(-1)).toMatch(/^\S+ thinking 0s$/)
  })
})
