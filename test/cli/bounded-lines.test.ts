import { describe, expect, it } from "vitest"
import { type BoundedLine, boundedLines } from "../../src/cli/bounded-lines.js"

async function* chunksOf(...parts: ReadonlyArray<string>) {
  for (const part of parts) yield Buffer.from(part, "utf8")
}

const collect = async (lines: AsyncIterable<BoundedLine>) => {
  const all: Array<BoundedLine> = []
  for await (const line of lines) all.push(line)
  return all
}

const line = (number: number, text: string): BoundedLine => ({ _tag: "Line", number, text })

describe("bounded lines", () => {
  it("splits on \\n and \\r\\n across chunks, keeps a last line without \\n, and decodes a character split between chunks", async () => {
    const euro = Buffer.from("€", "utf8")
    async function* split() {
      yield Buffer.from('{"a":1}\r\n{"b":')
      yield Buffer.concat([Buffer.from("2}\n\nx"), euro.subarray(0, 1)])
      yield Buffer.concat([euro.subarray(1), Buffer.from("y")])
    }
    expect(await collect(boundedLines(split(), 100))).toEqual([line(1, '{"a":1}'), line(2, '{"b":2}'), line(3, ""), line(4, "x€y")])
  })

  it("a line over the limit ends the reading with its number; one at the limit is read", async () => {
    expect(await collect(boundedLines(chunksOf("abc\n", "0123", "456789\n", "next\n"), 10))).toEqual([line(1, "abc"), line(2, "0123456789"), line(3, "next")])
    expect(await collect(boundedLines(chunksOf("abc\n", "0123", "4567890\n", "next\n"), 10))).toEqual([line(1, "abc"), { _tag: "TooLong", number: 2 }])
    expect(await collect(boundedLines(chunksOf("ok\n01234567890"), 10))).toEqual([line(1, "ok"), { _tag: "TooLong", number: 2 }])
  })

  it("never holds more than the limit and one chunk of an endless line, and stops reading it", async () => {
    const chunk = Buffer.alloc(64 * 1024, 0x61)
    let read = 0
    let stopped = false
    async function* endless() {
      try {
        for (;;) {
          read += chunk.length
          yield chunk
        }
      } finally {
        stopped = true
      }
    }
    const limit = 1024 * 1024
    expect(await collect(boundedLines(endless(), limit))).toEqual([{ _tag: "TooLong", number: 1 }])
    expect(read).toBeLessThanOrEqual(limit + chunk.length)
    expect(stopped).toBe(true)
  })
})
