import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either } from "effect"
import { decodeEvent, decodeEventJson } from "../../src/domain/decode.js"
import { AgentEvent } from "../../src/domain/events.js"

const valid = {
  id: "evt_1",
  schemaVersion: 1,
  sessionId: "ses_1",
  sequence: 1,
  timestamp: "2026-01-01T00:00:00.000Z",
  type: "session.created",
  payload: { cwd: "/tmp", client: "test" }
}

const problem = (u: unknown) => Either.match(decodeEvent(u), { onLeft: (e) => e, onRight: () => undefined })

// Events are plain JSON: their encoded form is the event itself, so stores can JSON.stringify them.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const encodedIsType: Same<typeof AgentEvent.Encoded, typeof AgentEvent.Type> = true

describe("decodeEvent", () => {
  it("accepts a valid event", () => {
    expect(encodedIsType).toBe(true)
    expect(Either.isRight(decodeEvent(valid))).toBe(true)
    expect(Either.getOrThrow(decodeEvent({ ...valid, turnId: "turn_1", type: "model.delta", payload: { text: "hi" } }))).toMatchObject({
      type: "model.delta",
      payload: { text: "hi" }
    })
  })

  it("names an unknown type", () => {
    const error = problem({ ...valid, type: "model.teleported" })
    expect(error?.problem).toBe("unknown_type")
    expect(error?.message).toContain('"model.teleported"')
  })

  it("names a wrong schemaVersion", () => {
    const error = problem({ ...valid, schemaVersion: 2 })
    expect(error?.problem).toBe("unsupported_schema_version")
    expect(error?.message).toContain("schemaVersion 2")
    expect(problem({ ...valid, schemaVersion: undefined })?.problem).toBe("unsupported_schema_version")
  })

  it("names the malformed field of a known event", () => {
    const error = problem({ ...valid, type: "model.delta", payload: { text: 42 } })
    expect(error?.problem).toBe("invalid_payload")
    expect(error?.message).toBe('malformed "model.delta" event: payload.text: Expected string, actual 42')
    const stop = problem({ ...valid, type: "turn.completed", payload: { stopReason: "bored" } })
    expect(stop?.message).toContain('payload.stopReason: Expected "final" | "cancelled"')
    expect(problem({ ...valid, sequence: 0 })?.message).toContain("sequence")
    expect(problem({ ...valid, payload: {} })?.message).toContain("payload.cwd")
  })

  it("rejects what is not an event at all", () => {
    expect(problem(null)?.problem).toBe("not_an_event")
    expect(problem([1, 2])?.problem).toBe("not_an_event")
    expect(problem({ ...valid, type: 7 })?.problem).toBe("not_an_event")
  })

  it("decodes JSON lines and names the line of a bad one", () => {
    expect(Either.isRight(decodeEventJson(JSON.stringify(valid)))).toBe(true)
    const bad = Either.match(decodeEventJson("{not json", 12), { onLeft: (e) => e, onRight: () => undefined })
    expect(bad?.problem).toBe("malformed_json")
    expect(bad?.line).toBe(12)
    expect(bad?.message).toMatch(/^line 12: not valid JSON/)
  })

  it.prop("every valid event survives JSON and decodes to itself", [Arbitrary.make(AgentEvent)], ([event]) => {
    const decoded = decodeEventJson(JSON.stringify(event))
    expect(Either.getOrThrow(decoded)).toEqual(JSON.parse(JSON.stringify(event)))
  }, { fastCheck: { numRuns: 300 } })
})
