import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { boundedLines } from "../../../src/layers/tools/bounded-lines.js"

const collect = async (chunks: ReadonlyArray<string>, keep: number) => {
  const lines: Array<{ text: string; length: number }> = []
  async function* source() {
    yield* chunks
  }
  for await (const line of boundedLines(source(), keep)) lines.push(line)
  return lines
}

/** What a whole-line reader gives: every line, its `\r` before `\n` dropped, no empty line after a final newline. */
const wholeLines = (text: string) => {
  const lines = text.split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line))
}

describe("boundedLines", () => {
  it("gives the lines a whole-line reader gives, however the text is cut into chunks, each kept to its first characters with its length", () =>
    fc.assert(
      fc.asyncProperty(fc.string({ unit: fc.constantFrom("a", "b", "\n", "\r") }), fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 1, max: 5 }), async (text, cuts, keep) => {
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
        const chunks = [0, ...points].map((from, i) => text.slice(from, [...points, text.length][i]))
        const expected = wholeLines(text).map((line) => ({ text: line.slice(0, keep), length: line.length }))
        expect(await collect(chunks, keep)).toEqual(expected)
      })
    ))

  it("a line of many megabytes is held as its first characters only", async () => {
    const chunk = "x".repeat(1024 * 1024)
    const lines = await collect([...Array.from({ length: 64 }, () => chunk), "\nend\n"], 10)
    expect(lines).toEqual([
      { text: "xxxxxxxxxx", length: 64 * 1024 * 1024 },
      { text: "end", length: 3 }
    ])
  })
})
