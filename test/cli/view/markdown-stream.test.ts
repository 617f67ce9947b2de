import { describe, expect, it } from "@effect/vitest"
import { renderMarkdown } from "../../../src/cli/view/markdown.js"
import { completeBlocks, makeMarkdownStream } from "../../../src/cli/view/markdown-stream.js"

const answer = [
  "## Findings",
  "",
  "The parser drops **trailing** commas; 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字.",
  "",
  "- one",
  "",
  "- two, after a blank line (the same list)",
  "",
  "```ts",
  "const a = 1",
  "",
  "const b = 2",
  "```",
  "",
  "| a | b |",
  "|---|---|",
  "| 1 | 2 |",
  "",
  `${"y".repeat(130)}`,
  "",
  "Last paragraph."
].join("\n")

/** The whole answer rendered at once, without blank lines at its ends. */
const whole = (width: number) => {
  const lines = renderMarkdown(answer, width, true).map((line) => line.text)
  while (lines[0] === "") lines.shift()
  while (lines.at(-1) === "") lines.pop()
  return lines
}

/** The answer pushed in pieces of `size` characters, then flushed: every line printed, in order. */
const streamed = (width: number, size: number) => {
  const stream = makeMarkdownStream({ color: true, width: () => width })
  const printed: Array<string> = []
  for (let at = 0; at < answer.length; at += size) printed.push(...stream.push(answer.slice(at, at + size)).map((line) => line.text))
  printed.push(...stream.flush().map((line) => line.text))
  return printed
}

describe("the answer streamed as Markdown", () => {
  for (const width of [40, 80, 120]) {
    it(`at ${width} columns, printed block by block, reads exactly as the whole answer rendered at once`, () => {
      for (const size of [1, 7, 64]) expect(streamed(width, size)).toEqual(whole(width))
    })
  }

  it("prints a block only once the next one began, and the last one at the flush", () => {
    const stream = makeMarkdownStream({ color: false, width: () => 80 })
    expect(stream.push("First **para")).toEqual([])
    expect(stream.push("graph**.\n\n")).toEqual([])
    expect(stream.push("Sec").map((line) => line.text)).toEqual(["First paragraph."])
    // The blank line between the blocks comes with the next block, none after the last.
    expect(stream.flush().map((line) => line.text)).toEqual(["", "Sec"])
    expect(stream.flush()).toEqual([])
  })

  it("does not cut an open code fence at its blank lines", () => {
    expect(completeBlocks("```\na\n\nb\n\nc")).toBe(0)
    expect(completeBlocks("para\n\nnext")).toBe("para\n\n".length)
    expect(completeBlocks("para\n\n")).toBe(0)
  })

  it("starts again after a flush: no blank line before the text after a tool call", () => {
    const stream = makeMarkdownStream({ color: false, width: () => 40 })
    stream.push("Reading.\n\n")
    expect(stream.flush().map((line) => line.text)).toEqual(["Reading."])
    stream.push("\n\nFound it.")
    expect(stream.flush().map((line) => line.text)).toEqual(["Found it."])
  })

  it("shows a control character split between pieces visibly", () => {
    const stream = makeMarkdownStream({ color: false, width: () => 40 })
    const tag = "\u{e0041}"
    stream.push(`a${tag.slice(0, 1)}`)
    stream.push(`${tag.slice(1)}\x1b[2Jb`)
    expect(stream.flush().map((line) => line.text)).toEqual(["a<U+E0041>^[[2Jb"])
  })
})
