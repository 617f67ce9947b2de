import { describe, expect, it } from "@effect/vitest"
import { isOlderVersion } from "../../../src/cli/host/connect.js"

/** Which running host a client may replace: only one of an older version than its own. */
describe("a local host's version against the client's", () => {
  it("orders versions by their numbers, part by part", () => {
    expect(isOlderVersion("0.0.1", "0.1.0")).toBe(true)
    expect(isOlderVersion("0.9.9", "0.10.0")).toBe(true)
    expect(isOlderVersion("0.1.0", "0.1.0")).toBe(false)
    expect(isOlderVersion("0.1.1", "0.1.0")).toBe(false)
    expect(isOlderVersion("1.0.0", "0.99.99")).toBe(false)
    expect(isOlderVersion("0.1", "0.1.1")).toBe(true)
  })

  it("takes a version that is not one as older (a host that says nothing sensible is replaced)", () => {
    expect(isOlderVersion("", "0.1.0")).toBe(true)
    expect(isOlderVersion("next", "0.1.0")).toBe(true)
  })
})
