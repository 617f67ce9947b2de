import { describe, expect, it } from "@effect/vitest"
import { makeProgress, progressLine } from "../../../src/cli/view/progress.js"
import { formatDuration, formatTokens } from "../../../src/cli/view/units.js"
import { textWidth } from "../../../src/cli/view/width.js"

describe("the progress line", () => {
  it("a spinner's frame, what is awaited and the whole seconds, short of the last column at 40/80/120", () => {
    expect(progressLine("thinking", 3_900, 0, { width: 80, color: false }).text).toBe("⠋ thinking 3s")
    for (const width of [40, 80, 120]) {
      const label = `read_file ${"漢字".repeat(80)} ${"x".repeat(200)}`
      expect(textWidth(progressLine(label, 12_000, 3, { width, color: true }).text)).toBeLessThan(width)
    }
    expect(progressLine("shell rm\x1b[2J", 0, 0, { width: 80, color: false }).text).toBe("⠋ shell rm^[[2J 0s")
  })
})

describe("the progress indicator", () => {
  const harness = (canDraw = () => true) => {
    let now = 0
    const drawn: Array<string> = []
    let erased = 0
    const progress = makeProgress({
      color: false,
      width: () => 80,
      now: () => now,
      draw: (line) => drawn.push(line.text),
      erase: () => erased++,
      canDraw,
      intervalMs: 0
    })
    return { progress, drawn, erased: () => erased, at: (ms: number) => (now = ms) }
  }

  it("draws the wait and its seconds on each frame, counted from when the wait began", () => {
    const { progress, drawn, at } = harness()
    progress.tick()
    expect(drawn).toEqual([])
    at(1000)
    progress.wait("thinking")
    at(3500)
    progress.tick()
    progress.wait("read_file a.ts")
    at(4600)
    progress.tick()
    expect(drawn).toEqual(["⠙ thinking 2s", "⠹ read_file a.ts 1s"])
  })

  it("a question pauses it (taken off), an answer resumes it; the end of the wait takes it off", () => {
    const { progress, drawn, erased } = harness()
    progress.wait("thinking")
    progress.tick()
    progress.pause()
    expect(erased()).toBe(1)
    progress.tick()
    expect(drawn).toHaveLength(1)
    progress.resume()
    progress.tick()
    expect(drawn).toHaveLength(2)
    progress.wait(undefined)
    expect(erased()).toBe(2)
    progress.tick()
    expect(drawn).toHaveLength(2)
  })

  it("never draws over a line another writer left open", () => {
    let open = true
    const { progress, drawn } = harness(() => !open)
    progress.wait("thinking")
    progress.tick()
    expect(drawn).toEqual([])
    open = false
    progress.tick()
    expect(drawn).toHaveLength(1)
  })

  it("stops for good", () => {
    const { progress, drawn, erased } = harness()
    progress.wait("thinking")
    progress.tick()
    progress.stop()
    expect(erased()).toBe(1)
    progress.tick()
    expect(drawn).toHaveLength(1)
  })
})

describe("units", () => {
  it("durations and token counts at a glance", () => {
    expect([0, 999, 1000, 12_449, 59_949, 65_000, 3_600_000].map(formatDuration)).toEqual(["0 ms", "999 ms", "1.0 s", "12.4 s", "59.9 s", "1m 05s", "60m 00s"])
    expect([0, 999, 1000, 12_345, 999_949, 999_950, 1_250_000].map(formatTokens)).toEqual(["0", "999", "1k", "12.3k", "999.9k", "1M", "1.3M"])
  })
})
