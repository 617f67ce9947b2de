import { describe, expect, it } from "@effect/vitest"
import { LiveOutput, utf8Bytes } from "../../src/core/live-output.js"

const limits = { wholeBytes: 20, tailBytes: 8, maxBytes: 40 }

describe("a running call's output, bounded for its records", () => {
  it("counts UTF-8 bytes: ASCII, two-, three- and four-byte characters", () => {
    expect(utf8Bytes("a")).toBe(1)
    expect(utf8Bytes("é")).toBe(2)
    expect(utf8Bytes("€")).toBe(3)
    expect(utf8Bytes("😀")).toBe(4)
    expect(utf8Bytes("a😀é")).toBe(7)
  })

  it("keeps output whole while it is within the whole part, one record per take", () => {
    const output = new LiveOutput(limits)
    expect(output.pending).toBe(false)
    expect(output.take()).toEqual([])
    expect(output.add("one\n")).toBe(true)
    output.add("two\n")
    expect(output.take()).toEqual([{ text: "one\ntwo\n" }])
    expect(output.pending).toBe(false)
    output.add("three\n")
    expect(output.take()).toEqual([{ text: "three\n" }])
    expect(output.thinned).toBe(false)
  })

  it("past the whole part keeps the last bytes, from a line's start, and says how many were skipped", () => {
    const output = new LiveOutput(limits)
    // 20 bytes whole, then 29 more of which the last 8 are kept.
    output.add("aaaaaaaaaaaaaaaaaaaa")
    output.add("bbbbbbbbbbbbbbbbbbbbbb\nccc\ndd")
    expect(output.thinned).toBe(true)
    // The kept tail "b\nccc\ndd" loses its partial first line: "ccc\ndd", after 29 - 6 bytes.
    expect(output.take()).toEqual([{ text: "aaaaaaaaaaaaaaaaaaaa" }, { text: "ccc\ndd", skipped: 23 }])
    output.add("eeee")
    // Right after the previous record, nothing was dropped: the tail is whole.
    expect(output.take()).toEqual([{ text: "eeee" }])
  })

  it("never holds more than the whole part and a tail in memory, however much comes", () => {
    const output = new LiveOutput(limits)
    for (let i = 0; i < 10_000; i++) output.add("0123456789\n")
    const records = output.take()
    expect(records.map((r) => r.text).join("").length).toBeLessThanOrEqual(limits.wholeBytes + limits.tailBytes)
    expect(records[1]?.skipped).toBe(10_000 * 11 - 20 - (records[1]?.text.length ?? 0))
  })

  it("the record that leaves no room for another tail is the call's last: capped, and nothing more is kept", () => {
    const output = new LiveOutput(limits)
    output.add("x".repeat(20))
    expect(output.take()).toEqual([{ text: "x".repeat(20) }])
    const tails: Array<unknown> = []
    for (let i = 0; i < 10 && !output.capped; i++) {
      output.add("y".repeat(30))
      tails.push(...output.take())
    }
    // 20 whole + 8 + 8 = 36: no room for another 8.
    expect(tails).toEqual([
      { text: "y".repeat(8), skipped: 22 },
      { text: "y".repeat(8), skipped: 22, capped: true }
    ])
    expect(output.add("more")).toBe(false)
    expect(output.take()).toEqual([])
  })

  it("never splits a character: the whole part stops before one that does not fit, the tail starts after", () => {
    const output = new LiveOutput({ wholeBytes: 5, tailBytes: 5, maxBytes: 100 })
    output.add("ab😀cd😀")
    const [whole, tail] = output.take()
    expect(whole).toEqual({ text: "ab" })
    // "😀cd😀" is 10 bytes: the last 5 that hold whole characters are "d😀".
    expect(tail).toEqual({ text: "d😀", skipped: 5 })
  })

  it("a single huge line is kept as its last bytes (no line to start at)", () => {
    const output = new LiveOutput(limits)
    output.add("z".repeat(1000))
    expect(output.take()).toEqual([{ text: "z".repeat(20) }, { text: "z".repeat(8), skipped: 972 }])
  })
})
