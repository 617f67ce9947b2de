import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { parseRoute, type Route, searchOf } from "../../web/src/route.js"

describe("the page's route in the URL", () => {
  it("reads the session, the events a link points at, and the memory view", () => {
    expect(parseRoute("")).toEqual({ _tag: "home" })
    expect(parseRoute("?session=")).toEqual({ _tag: "home" })
    expect(parseRoute("?session=ses_1")).toEqual({ _tag: "session", sessionId: "ses_1" })
    expect(parseRoute("?session=ses_1&events=5-9")).toEqual({ _tag: "session", sessionId: "ses_1", events: { from: 5, to: 9 } })
    expect(parseRoute("?view=memory&session=ses_1")).toEqual({ _tag: "memory" })
    expect(parseRoute("?view=permissions")).toEqual({ _tag: "permissions" })
    expect(parseRoute("?view=elsewhere")).toEqual({ _tag: "home" })
  })

  it("ignores a malformed range and orders a reversed one", () => {
    expect(parseRoute("?session=ses_1&events=5")).toEqual({ _tag: "session", sessionId: "ses_1" })
    expect(parseRoute("?session=ses_1&events=a-b")).toEqual({ _tag: "session", sessionId: "ses_1" })
    expect(parseRoute("?session=ses_1&events=-3-4")).toEqual({ _tag: "session", sessionId: "ses_1" })
    expect(parseRoute("?session=ses_1&events=9-5")).toEqual({ _tag: "session", sessionId: "ses_1", events: { from: 5, to: 9 } })
  })

  it("writes what it reads", () => {
    expect(searchOf({ _tag: "home" })).toBe("")
    expect(searchOf({ _tag: "memory" })).toBe("?view=memory")
    expect(searchOf({ _tag: "permissions" })).toBe("?view=permissions")
    expect(searchOf({ _tag: "session", sessionId: "ses 1&x" })).toBe("?session=ses+1%26x")
  })

  it.prop(
    "a route survives the round trip through the URL",
    {
      sessionId: FastCheck.string({ minLength: 1 }),
      range: FastCheck.option(FastCheck.tuple(FastCheck.nat(), FastCheck.nat()), { nil: undefined })
    },
    ({ sessionId, range }) => {
      const route: Route =
        range === undefined
          ? { _tag: "session", sessionId }
          : { _tag: "session", sessionId, events: { from: Math.min(...range), to: Math.max(...range) } }
      expect(parseRoute(searchOf(route))).toEqual(route)
    }
  )
})
