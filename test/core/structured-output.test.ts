import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Ref, Stream } from "effect"
import { tmpdir } from "node:os"
import { outputInstruction } from "../../src/core/output-check.js"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { EventOf } from "../../src/domain/events.js"
import type { TurnTerms } from "../../src/domain/turn-terms.js"
import type { Script } from "../../src/layers/model/scripted.js"
import * as AjvOutput from "../../src/layers/output/ajv.js"
import { engineLayer, replayAll, turnTypes } from "../support/engine-harness.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"
import { storeCases } from "../support/store-cases.js"

const schema = {
  type: "object",
  required: ["answer", "confidence"],
  properties: { answer: { type: "string" }, confidence: { type: "number", minimum: 0, maximum: 1 } },
  additionalProperties: false
}

const turn = (terms: TurnTerms) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const { header } = yield* engine.createSession({ cwd: tmpdir(), client: "test" })
    yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "answer in JSON", terms }))
    return yield* replayAll(header.sessionId)
  })

const endOf = (log: ReadonlyArray<{ readonly type: string }>) => log.find((e): e is EventOf<"turn.completed"> => e.type === "turn.completed")
const structuredOf = (log: ReadonlyArray<{ readonly type: string }>) => log.find((e): e is EventOf<"output.structured"> => e.type === "output.structured")
const steering = (log: ReadonlyArray<{ readonly type: string }>) =>
  log.filter((e): e is EventOf<"user.message"> => e.type === "user.message" && (e as EventOf<"user.message">).payload.mode === "steer")

for (const store of storeCases) {
  describe(`structured output (${store.name} store)`, () => {
    const on = (script: Script) => Effect.provide(engineLayer(store.fresh(), script, { outputValidator: AjvOutput.layer }))

    it.live("an invalid first answer is sent back with its problems; the valid second one is the turn's output", () =>
      Effect.gen(function* () {
        const log = yield* turn({ outputSchema: schema })
        expect(turnTypes(log)).toEqual([
          "session.created",
          "turn.started",
          "user.message",
          "session.renamed",
          "model.delta",
          "model.completed",
          "user.message",
          "model.delta",
          "model.completed",
          "output.structured",
          "turn.completed"
        ])
        const [retry] = steering(log)
        expect(retry?.payload.content).toContain("/: must have required property 'confidence'")
        expect(retry?.payload.content).toContain("/answer: must be string")
        expect(structuredOf(log)?.payload).toEqual({ value: { answer: "42", confidence: 0.9 }, attempts: 2 })
        expect(endOf(log)?.payload.stopReason).toBe("final")
      }).pipe(on({ responses: [{ chunks: [{ text: '{"answer": 42}' }] }, { chunks: [{ text: '```json\n{"answer": "42", "confidence": 0.9}\n```' }] }] })))

    it.live("an answer that is not JSON at all is a problem like any other", () =>
      Effect.gen(function* () {
        const log = yield* turn({ outputSchema: schema, outputRetries: 1 })
        expect(steering(log)[0]?.payload.content).toMatch(/the answer is not JSON/)
        expect(structuredOf(log)?.payload.attempts).toBe(2)
      }).pipe(on({ responses: ["Sure! Here it is.", '{"answer": "yes", "confidence": 1}'] })))

    it.live("answers that never validate end the turn with output_invalid after the retries", () =>
      Effect.gen(function* () {
        const log = yield* turn({ outputSchema: schema, outputRetries: 2 })
        expect(log.filter((e) => e.type === "model.completed")).toHaveLength(3)
        expect(steering(log)).toHaveLength(2)
        expect(structuredOf(log)).toBeUndefined()
        expect(endOf(log)?.payload).toMatchObject({ stopReason: "error", errorCode: "output_invalid" })
        expect(endOf(log)?.payload.message).toMatch(/after 3 attempt\(s\)/)
      }).pipe(on({ responses: ['{"answer": 1}', '{"answer": 2}', '{"answer": 3}', '{"answer": "never asked", "confidence": 0}'] })))

    it.live("a schema the validator cannot use fails the turn at once, without asking again", () =>
      Effect.gen(function* () {
        const log = yield* turn({ outputSchema: { type: "nonsense" } })
        expect(log.filter((e) => e.type === "model.completed")).toHaveLength(1)
        expect(endOf(log)?.payload).toMatchObject({ stopReason: "error", errorCode: "output_invalid" })
        expect(endOf(log)?.payload.message).toMatch(/not a usable JSON Schema/)
      }).pipe(on({ responses: ['{"answer": "x"}', '{"answer": "y"}'] })))
  })
}

describe("structured output: the request and the engine", () => {
  it.live("the model is told the schema in the system prompt of every request of the turn, and a replay of the log rebuilds it", () => {
    const recording = recordingScripted({ responses: ["no", '{"answer": "a", "confidence": 0.5}'] })
    const layer = engineLayer(storeCases[0]!.fresh(), undefined, { model: recording, outputValidator: AjvOutput.layer }).pipe(Layer.provideMerge(recording))
    return Effect.gen(function* () {
      const log = yield* turn({ outputSchema: schema })
      const requests = yield* Effect.flatMap(RecordedRequests, Ref.get)
      expect(requests).toHaveLength(2)
      for (const request of requests) expect(request.system).toContain(outputInstruction(schema))
      const rebuilt = Either.getOrThrow(rebuildRequests(log))
      expect(rebuilt.map((r) => r.system)).toEqual(requests.map((r) => r.system))
    }).pipe(Effect.provide(layer))
  })

  it.live("an engine without a validator fails a turn that has an output schema, saying why", () =>
    Effect.gen(function* () {
      const log = yield* turn({ outputSchema: schema })
      expect(endOf(log)?.payload).toMatchObject({ stopReason: "error", errorCode: "output_invalid" })
      expect(endOf(log)?.payload.message).toMatch(/no JSON Schema validator/)
    }).pipe(Effect.provide(engineLayer(storeCases[0]!.fresh(), { responses: ['{"answer": "x", "confidence": 0}'] }))))
})
