import { describe, expect, it } from "@effect/vitest"
import { relativeTime } from "../../web/src/relative-time.js"

const now = Date.parse("2025-03-10T12:00:00.000Z")
const ago = (ms: number) => new Date(now - ms).toISOString()
const minute = 60_000
const hour = 60 * minute
const day = 24 * hour

describe("relative times", () => {
  it("say how long ago, as a person would, then the date", () => {
    expect(relativeTime(ago(20_000), now)).toBe("just now")
    expect(relativeTime(ago(-5 * minute), now)).toBe("just now")
    expect(relativeTime(ago(2 * minute + 10_000), now)).toBe("2 min ago")
    expect(relativeTime(ago(59 * minute), now)).toBe("59 min ago")
    expect(relativeTime(ago(3 * hour), now)).toBe("3 h ago")
    expect(relativeTime(ago(30 * hour), now)).toBe("yesterday")
    expect(relativeTime(ago(4 * day), now)).toBe("4 days ago")
    const old = new Date(now - 40 * day)
    expect(relativeTime(old.toISOString(), now)).toBe(`${old.getDate()} Jan 2025`)
    expect(relativeTime("not a time", now)).toBe("not a time")
  })
})
