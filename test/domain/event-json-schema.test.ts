import { describe, expect, it } from "@effect/vitest"
import { Ajv, type ValidateFunction } from "ajv"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { eventsJsonSchema } from "../../src/domain/event-json-schema.js"
import { SCHEMA_VERSION } from "../../src/domain/events.js"
import { goldenTranscripts } from "../support/golden.js"

const repo = resolve(import.meta.dirname, "../..")
const compile = () => new Ajv({ allErrors: true, strictTypes: false }).compile(eventsJsonSchema())
/**
 * One compiled validator for the file's checks: compiling the catalogue takes about half a
 * second, and a compiled validator keeps nothing between calls but the last call's `errors`.
 */
let compiled: ValidateFunction | undefined
const validator = () => (compiled ??= compile())

const event = {
  id: "evt-1",
  schemaVersion: SCHEMA_VERSION,
  sessionId: "ses-1",
  turnId: "turn-1",
  sequence: 5,
  timestamp: "2026-01-01T00:00:00.000Z",
  type: "model.completed",
  payload: { stopReason: "final", usage: { inputTokens: 10, outputTokens: 2 }, costUsd: 0.001 }
}

describe("the event catalogue as a JSON Schema", () => {
  it("the schema the package ships is the one generated from the domain's Schemas (npm run schema:events rewrites it)", () => {
    const shipped: unknown = JSON.parse(readFileSync(join(repo, "schema/events.schema.json"), "utf8"))
    expect(shipped).toEqual(eventsJsonSchema())
  })

  it("names its schemaVersion and compiles under ajv (strict about keywords)", () => {
    expect(eventsJsonSchema()["$id"]).toContain(`v${SCHEMA_VERSION}`)
    expect(() => compile()).not.toThrow()
  })

  it("every event of every golden transcript validates", () => {
    const validate = validator()
    const transcripts = goldenTranscripts()
    expect(transcripts.length).toBeGreaterThan(0)
    for (const transcript of transcripts) {
      for (const [line, e] of transcript.events.entries()) {
        const valid = validate(e)
        expect({ transcript: transcript.name, line: line + 1, errors: valid ? null : validate.errors }).toEqual({
          transcript: transcript.name,
          line: line + 1,
          errors: null
        })
      }
    }
  })

  it("new events validate: structured output, a budget stop, a turn's terms", () => {
    const validate = validator()
    expect(validate(event)).toBe(true)
    expect(validate({ ...event, type: "output.structured", payload: { value: { any: ["json", 1, null] }, attempts: 2 } })).toBe(true)
    expect(validate({ ...event, type: "turn.completed", payload: { stopReason: "budget", message: "the turn cost $0.10" } })).toBe(true)
    expect(validate({ ...event, type: "turn.started", payload: { promptPreview: "x", terms: { maxCostUsd: 0.5, outputSchema: { type: "object" } } } })).toBe(true)
  })

  it.each([
    ["a missing payload field", { ...event, payload: { stopReason: "final" } }],
    ["a payload field of the wrong type", { ...event, payload: { ...event.payload, usage: { inputTokens: "10", outputTokens: 2 } } }],
    ["an unknown payload field", { ...event, payload: { ...event.payload, surprise: true } }],
    ["a negative cost", { ...event, payload: { ...event.payload, costUsd: -1 } }],
    ["an unknown stop reason", { ...event, payload: { ...event.payload, stopReason: "bored" } }],
    ["an unknown event type", { ...event, type: "model.guessed" }],
    ["another schemaVersion", { ...event, schemaVersion: 2 }],
    ["a sequence below 1", { ...event, sequence: 0 }],
    ["a missing envelope field", { ...event, id: undefined }],
    ["a payload of another type", { ...event, type: "tool.completed" }]
  ])("an event with %s fails validation", (_, wrong) => {
    const validate = validator()
    expect(validate(JSON.parse(JSON.stringify(wrong)))).toBe(false)
  })
})
