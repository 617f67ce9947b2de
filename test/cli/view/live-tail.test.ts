import { describe, expect, it } from "@effect/vitest"
import { LiveTail, liveTailLines } from "../../../src/cli/view/live-tail.js"
import { textWidth } from "../../../src/cli/view/width.js"

describe("the last lines of a running command", () => {
  it("keeps the last lines, the one being written included, across chunks that split lines", () => {
    const tail = new LiveTail(3)
    expect(tail.lines()).toEqual([])
    tail.push({ text: "a\nb" })
    tail.push({ text: "c\nd\ne\nf" })
    expect(tail.lines()).toEqual(["d", "e", "f"])
    tail.push({ text: "g\n" })
    expect(tail.lines()).toEqual(["d", "e", "fg"])
  })

  it("says where the log skipped bytes, on a line of its own", () => {
    const tail = new LiveTail(3)
    tail.push({ text: "start\nhalf" })
    tail.push({ text: "later\n", skipped: 4096 })
    expect(tail.lines()).toEqual(["half", "[… 4096 bytes not shown …]", "later"])
  })

  it("a line without end costs no more than a bounded number of characters", () => {
    const tail = new LiveTail(2)
    for (let i = 0; i < 1000; i++) tail.push({ text: "x".repeat(1000) })
    expect(tail.lines()[0]?.length).toBe(1000)
  })

  it("draws each line dim, on one line of the width, with every control character visible", () => {
    const lines = liveTailLines(["\x1b]52;c;aGk=\x07copied", "tab\there", "界".repeat(30)], { width: 20, color: true, indent: "  " })
    const texts = lines.map((line) => line.text)
    expect(texts[0]).toBe("  \x1b[2m^[]52;c;aGk=^Gcop…\x1b[0m")
    expect(texts[1]).toBe("  \x1b[2mtab    here\x1b[0m")
    for (const text of texts) expect(textWidth(text)).toBeLessThanOrEqual(20)
  })
})
