import { describe, expect, it } from "@effect/vitest"
import { visibleWidth } from "@mariozechner/pi-tui"
import { compactLine } from "../../../src/cli/interactive/compact-lines.js"

const gray = (text: string) => `\x1b[90m${text}\x1b[39m`

describe("compactLine", () => {
  it("draws a repeated styled run as one run", () => {
    expect(compactLine(gray("─").repeat(5))).toBe(gray("─────"))
    expect(compactLine(`a${gray("─").repeat(3)}b${gray("─").repeat(2)}`)).toBe(`a${gray("───")}b${gray("──")}`)
  })

  it("keeps repeats whose closing code undoes more or other than the opening one", () => {
    const bold = "\x1b[1m─\x1b[39m".repeat(3)
    expect(compactLine(bold)).toBe(bold)
    const reset = "\x1b[90m─\x1b[0m".repeat(3)
    expect(compactLine(reset)).toBe(reset)
  })

  it("leaves out spaces ending a line, unless a background shows them", () => {
    expect(compactLine(`\x1b[7m \x1b[0m${" ".repeat(20)}`)).toBe("\x1b[7m \x1b[0m")
    expect(compactLine(`\x1b[2mworking\x1b[22m   `)).toBe("\x1b[2mworking\x1b[22m")
    expect(compactLine(`\x1b[7mselected   `)).toBe(`\x1b[7mselected   `)
    expect(compactLine(`\x1b[48;5;236mcode   `)).toBe(`\x1b[48;5;236mcode   `)
    // A foreground's arguments are not a background.
    expect(compactLine(`\x1b[38;5;100mtext   `)).toBe(`\x1b[38;5;100mtext`)
    expect(compactLine("   ")).toBe("")
  })

  it("never widens a line nor changes the text it shows", () => {
    const strip = (line: string) => line.replace(/\x1b\[[0-9;]*m/g, "")
    for (const line of [gray("─").repeat(80), `${gray("x")}${gray("y")}${gray("x")}`, `\x1b[36m⠴\x1b[39m \x1b[2mworking… (esc)\x1b[22m${" ".repeat(40)}`]) {
      const compacted = compactLine(line)
      expect(strip(compacted)).toBe(strip(line).trimEnd())
      expect(visibleWidth(compacted)).toBeLessThanOrEqual(visibleWidth(line))
    }
  })
})
