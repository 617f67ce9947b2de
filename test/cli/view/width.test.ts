import { describe, expect, it } from "@effect/vitest"
import { visibleWidth } from "@mariozechner/pi-tui"
import { NARROW_SYMBOLS, textWidth } from "../../../src/cli/view/width.js"

describe("textWidth", () => {
  it("counts each symbol it knows as pi-tui does: one column", () => {
    for (const symbol of NARROW_SYMBOLS) {
      expect(visibleWidth(symbol), symbol).toBe(1)
      expect(textWidth(symbol), symbol).toBe(1)
    }
  })

  it("measures lines of text, marks and colours as pi-tui does", () => {
    const lines = [
      "",
      "plain ascii",
      `\x1b[32m✓\x1b[39m read_file notes.txt\x1b[2m · 1 ms\x1b[22m`,
      `${NARROW_SYMBOLS} and ${[...NARROW_SYMBOLS].reverse().join(" ")}`,
      "\x1b[38;5;100mextended colour\x1b[39m ─── › ✗",
      // Beyond the fast path: pi-tui's own measure.
      "wide 日本語 · ✓",
      "an emoji 👍 ✓",
      "combining e\u0301 ✓",
      "a tab\there",
      "\x1b]8;;https://example.com\x07link\x1b]8;;\x07 ·"
    ]
    for (const line of lines) expect(textWidth(line), JSON.stringify(line)).toBe(visibleWidth(line))
  })
})
