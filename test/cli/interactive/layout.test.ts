import { describe, expect, it } from "@effect/vitest"
import { setCapabilities, visibleWidth } from "@mariozechner/pi-tui"
import { makeBlockLines } from "../../../src/cli/interactive/block-lines.js"
import { foldDeclared, withContextBlocks } from "../../../src/domain/attached-blocks.js"
import { statusParts } from "../../../src/cli/interactive/status-line.js"
import { makeTheme } from "../../../src/cli/interactive/theme.js"
import { type Block, Timeline } from "../../../src/cli/interactive/timeline.js"
import { toolSubject } from "../../../src/cli/interactive/tool-line.js"
import { LiveTail } from "../../../src/cli/view/live-tail.js"

/** A running command's last lines, as its `tool.output` events give them. */
const tailOf = (...texts: ReadonlyArray<string>) => {
  const tail = new LiveTail()
  for (const text of texts) tail.push({ text })
  return tail
}

const hostile = "fine\x1b]52;c;cGF3bmVk\x07 \x1b[2J\rover\u202Eevil\tend"

const blocks: ReadonlyArray<Block> = [
  { kind: "user", text: `explain ${hostile} ${"word ".repeat(40)}`, steer: false, version: 0 },
  { kind: "assistant", text: `# Title ${hostile}\n\n${"long words go here ".repeat(30)}\n\n- item ${hostile}\n\n\`\`\`\ncode ${hostile}\n\`\`\``, version: 0 },
  { kind: "thinking", text: `thinking ${hostile} `.repeat(20), redacted: false, version: 0 },
  {
    kind: "tool",
    toolCallId: "c",
    name: "shell",
    input: { command: `echo ${hostile}` },
    state: "failed",
    output: `${hostile}\nsecond line`,
    durationMs: 1234,
    children: [],
    version: 0
  },
  {
    kind: "tool",
    toolCallId: "r",
    name: "shell",
    input: { command: "npm test" },
    state: "running",
    live: tailOf(`${hostile}\n`, `${"wide 界 ".repeat(40)}\n${hostile}`),
    children: [],
    version: 0
  },
  { kind: "note", text: `note ${hostile} ${"x".repeat(300)}`, tone: "warn", version: 0 },
  { kind: "detail", title: `$ ${hostile}`, body: `+added ${hostile}\n-removed\n${"y".repeat(500)}`, diff: true, version: 0 },
  { kind: "plan", plan: `1. ${hostile}`, version: 0 }
]

/** Every escape sequence in the lines is a colour (SGR): content cannot move the cursor, set the clipboard or clear the screen. */
const onlyColours = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, "")

describe("blocks drawn as lines", () => {
  for (const color of [false, true]) {
    it(`never wider than the terminal, and content shows its control characters visibly (colour ${color})`, () => {
      const draw = makeBlockLines(makeTheme(color))
      for (const width of [20, 40, 80, 120]) {
        for (const block of blocks) {
          const lines = draw.lines(block, width)
          for (const line of lines) {
            expect(visibleWidth(line), `${block.kind} at ${width}: ${JSON.stringify(line)}`).toBeLessThanOrEqual(width)
            expect(onlyColours(line), `${block.kind}: ${JSON.stringify(line)}`).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f\u202e]/)
          }
          if (block.kind !== "thinking" && (block.kind !== "tool" || block.state === "running")) expect(lines.join("\n")).toContain("^[")
        }
      }
    })
  }

  it("a link shows where it goes, even on a terminal that takes hyperlinks: content writes no escape of its own", () => {
    setCapabilities({ images: null, trueColor: false, hyperlinks: false })
    const draw = makeBlockLines(makeTheme(true))
    const lines = draw.lines({ kind: "assistant", text: "see [the docs](https://evil.example/x)", version: 0 }, 80).join("\n")
    expect(lines).toContain("(https://evil.example/x)")
    expect(lines).not.toContain("\x1b]8;")
  })

  it("Markdown is rendered: no heading marks, list bullets kept; a long line wraps at words", () => {
    const draw = makeBlockLines(makeTheme(false))
    const lines = draw.lines({ kind: "assistant", text: "# Title\n\nSome **bold** text that is long enough to wrap at twenty columns.\n\n- one", version: 0 }, 20)
    expect(lines[0]?.trimEnd()).toBe("Title")
    expect(lines.join("\n")).not.toContain("**")
    expect(lines.map((line) => line.trimEnd())).toContain("- one")
    expect(lines.map((line) => line.trimEnd())).toContain("Some bold text that")
  })

  it("a tool call is one line: the tool, what it acts on, how it went, how long it took", () => {
    const draw = makeBlockLines(makeTheme(false))
    const line = (block: Block) => draw.lines(block, 80).join("\n")
    const base = () => ({ kind: "tool" as const, toolCallId: "c", children: [], version: 0 })
    // Finished: as `run` draws it, then who allowed it when that is news.
    expect(line({ ...base(), name: "read_file", input: { path: "src/a.ts" }, state: "done", output: "1 a\n2 b", durationMs: 4 })).toBe("✓ read_file src/a.ts · 4 ms")
    expect(
      line({ ...base(), name: "shell", input: { command: "npm test" }, state: "failed", output: "boom", durationMs: 2300, data: { _tag: "shell", command: "npm test", exitCode: 1, timedOut: false, truncated: false } })
    ).toBe("✗ shell npm test · exit 1 · 2.3 s")
    expect(line({ ...base(), name: "write_file", input: { path: "a.txt" }, state: "done", verdict: "allowed, on the web", output: "", durationMs: 5 })).toBe("✓ write_file a.txt · 5 ms · allowed, on the web")
    // Not finished: what it waits for.
    expect(line({ ...base(), name: "write_file", input: { path: "a.txt" }, state: "asking" })).toBe("? write_file a.txt  waiting for an answer")
    expect(line({ ...base(), name: "shell", input: { command: "make" }, state: "running" })).toBe("⋯ shell make  running")
  })

  it("a running command shows its last lines under its line; its result folds them into the one line", () => {
    const draw = makeBlockLines(makeTheme(false))
    const base = { kind: "tool" as const, toolCallId: "c", name: "shell", input: { command: "npm test" }, children: [], version: 0 }
    const live = tailOf("one\ntwo\nthree\n", "four\nfive\nsix\nseven")
    expect(draw.lines({ ...base, state: "running", live }, 40)).toEqual(["⋯ shell npm test  running", "  │ three", "  │ four", "  │ five", "  │ six", "  │ seven"])
    const data = { _tag: "shell" as const, command: "npm test", exitCode: 0, timedOut: false, truncated: false }
    expect(draw.lines({ ...base, state: "done", live, output: "seven\n[exit code 0]", durationMs: 2300, data }, 40)).toEqual(["✓ shell npm test · exit 0 · 2.3 s"])
  })
})

describe("small pieces of the screen", () => {
  it("names what a call acts on, as run does", () => {
    expect(toolSubject({ pattern: "foo", path: "src" })).toBe("foo in src")
    expect(toolSubject({ agent: "reviewer", prompt: "look" })).toBe("reviewer")
    expect(toolSubject({ command: "npm test" })).toBe("npm test")
    expect(toolSubject({ todos: [] })).toBe("")
  })

  it("a prompt's attached files are named, not shown (those the message declares)", () => {
    const prompt = withContextBlocks("look at @a.txt", [{ uri: "file:///w/a.txt", text: "secret body" }])
    expect(prompt.content).toBe('look at @a.txt\n\n<context uri="file:///w/a.txt">\nsecret body\n</context>')
    expect(foldDeclared(prompt.content, prompt.attached)).toEqual({ text: "look at @a.txt", attached: ["/w/a.txt"] })
  })

  it("the status line: model, mode, the running turn's time and spend, the session's", () => {
    const timeline = new Timeline()
    const state = { ...timeline.state, running: true, turnStartedAt: 0, turnSpend: { requests: 1, tokens: 1500, costUsd: 0, unpriced: 1 }, sessionSpend: { requests: 3, tokens: 4000, costUsd: 0, unpriced: 3 } }
    expect(statusParts(state, { model: "scripted", mode: "plan", now: 65_000 })).toEqual(["scripted", "mode plan", "turn 1m 05s 1.5k tokens", "session 4k tokens"])
    expect(statusParts(timeline.state, { model: undefined, mode: "default", now: 0 })).toEqual(["default model", "mode default"])
  })
})
