import { describe, expect, it } from "@effect/vitest"
import { getCapabilities, setCapabilities } from "@mariozechner/pi-tui"
import { renderMarkdown } from "../../../src/cli/view/markdown.js"
import { textWidth } from "../../../src/cli/view/width.js"

const answer = [
  "# Plan",
  "",
  "## Steps",
  "",
  "Some **bold**, _italic_, ~~gone~~ and `code`, a [link](https://example.com/docs).",
  "",
  "- first item",
  "- second item",
  "  - nested item",
  "",
  "1. one",
  "2. two",
  "",
  "> quoted **words**",
  "",
  "| file | 説明 |",
  "|---|---|",
  "| src/a.ts | 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字 |",
  "",
  "```ts",
  "const answer: number = 42 // the answer",
  "```",
  "",
  `A word too long for any line: ${"x".repeat(150)} and 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字 end.`
].join("\n")

const texts = (width: number, color: boolean) => renderMarkdown(answer, width, color).map((line) => line.text)
const plain = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, "")

describe("renderMarkdown", () => {
  for (const width of [40, 80, 120]) {
    it(`at ${width} columns every line fits, wide characters counted twice, and no Markdown syntax is left`, () => {
      for (const color of [false, true]) {
        const lines = texts(width, color)
        for (const line of lines) expect(textWidth(line), line).toBeLessThanOrEqual(width)
        const shown = lines.map(plain).join("\n")
        expect(shown).not.toMatch(/^#/m)
        expect(shown).not.toContain("**")
        expect(shown).not.toContain("~~")
        expect(shown).not.toContain("|---")
        expect(shown).toContain("Plan")
        expect(shown).toContain("- first item")
        expect(shown).toContain("1. one")
        expect(shown).toContain("│ quoted words")
        expect(shown).toMatch(/┌─+┬─+┐/)
        // The long word is broken, all of it kept; the CJK run too.
        expect(shown.replace(/\s/g, "")).toContain("x".repeat(150))
        expect(shown.replace(/\s/g, "")).toContain("漢字".repeat(34))
        // A line ends with its text: no padding to the width.
        for (const line of lines) expect(line).not.toMatch(/ $/)
      }
    })
  }

  it("without colour writes no escape at all; a code span keeps its backticks", () => {
    const lines = texts(80, false)
    expect(lines.join("\n")).not.toContain("\x1b")
    expect(lines.join("\n")).toContain("`code`")
  })

  it("with colour styles headings, emphasis and code, highlights a known language, and ends every style on its line", () => {
    const lines = texts(80, true)
    expect(lines[0]).toContain("\x1b[1m")
    expect(lines.find((line) => line.includes("bold"))).toContain("\x1b[1mbold\x1b[22m")
    expect(lines.find((line) => line.includes("const"))).toContain("\x1b[35mconst\x1b[39m")
    for (const line of lines) if (line.includes("\x1b")) expect(line.endsWith("\x1b[0m")).toBe(true)
  })

  it("writes a link's target out, also on a terminal pi-tui would give an OSC 8 hyperlink", () => {
    const before = getCapabilities()
    setCapabilities({ ...before, hyperlinks: true })
    try {
      const shown = renderMarkdown("see [the docs](https://evil.example/x)", 80, true).map((line) => line.text).join("\n")
      expect(shown).not.toContain("\x1b]8")
      expect(plain(shown)).toContain("the docs (https://evil.example/x)")
      expect(getCapabilities().hyperlinks).toBe(true)
    } finally {
      setCapabilities(before)
    }
  })

  it("an unknown language or none is shown as written", () => {
    const lines = renderMarkdown("```nosuchlang\nlet x = 1\n```", 80, true).map((line) => line.text)
    expect(lines).toContain("  let x = 1")
  })
})
