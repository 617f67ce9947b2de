import { FetchHttpClient } from "@effect/platform"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Stream } from "effect"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import * as Responses from "../../src/layers/model/openai-responses.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { ModelGateway } from "../../src/services/ModelGateway.js"
import { engineLayer, replayAll, types } from "../support/engine-harness.js"
import * as Replay from "../support/replay-server.js"

const workspaces: Array<string> = []
afterAll(() => {
  for (const dir of workspaces) rmSync(dir, { recursive: true, force: true })
})

const fixture = resolve(import.meta.dirname, "../fixtures/openai-responses/tool-round-trip.json")

describe("the agent loop against the Responses adapter and a replay server", () => {
  it.live("the encrypted reasoning item is kept in the log and goes back, before the call it led to, on the next step", () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "responses-loop-")))
    workspaces.push(cwd)
    writeFileSync(join(cwd, "README.md"), "hello from the readme\n")
    return Effect.gen(function* () {
      const server = yield* Replay.start(fixture)
      const model = Layer.effect(
        ModelGateway,
        Responses.make({ baseUrl: `${server.url}/v1`, apiKey: Redacted.make("sk-test"), model: "gpt-5.4" })
      ).pipe(Layer.provide(FetchHttpClient.layer))
      const events = yield* Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd, client: "test" })
        yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "What does the README say?" }))
        return yield* replayAll(header.sessionId)
      }).pipe(Effect.provide(engineLayer(MemoryStore.layer, undefined, { tools: localTools(sandboxOff), model })))

      expect(events[0]?.payload).toMatchObject({ model: "openai/gpt-5.4", api: "responses" })
      expect(types(events)).toContain("tool.completed")
      const encrypted = events.flatMap((event) =>
        event.type === "model.thinking_delta" && event.payload.encryptedReasoning !== undefined ? [event.payload] : []
      )
      expect(encrypted).toEqual([
        { text: "", encryptedReasoning: "gAAAAB-encrypted-tool-step" },
        { text: "", encryptedReasoning: "gAAAAB-encrypted-answer-step" }
      ])
      const completed = events.flatMap((event) => (event.type === "model.completed" ? [event.payload.usage] : []))
      expect(completed).toEqual([
        { inputTokens: 310, outputTokens: 96, cacheReadTokens: 0, reasoningTokens: 64 },
        { inputTokens: 164, outputTokens: 30, cacheReadTokens: 256, reasoningTokens: 16 }
      ])

      const requests = yield* server.requests
      expect(requests).toHaveLength(2)
      expect(requests[1]?.body).toMatchObject({
        store: false,
        include: ["reasoning.encrypted_content"],
        input: [
          { role: "user", content: "What does the README say?" },
          { type: "reasoning", summary: [{ type: "summary_text", text: "Need to read the README." }], encrypted_content: "gAAAAB-encrypted-tool-step" },
          { role: "assistant", content: "Reading README.md." },
          { type: "function_call", call_id: "call_RoundTrip01", name: "read_file", arguments: "{\"path\":\"README.md\"}" },
          { type: "function_call_output", call_id: "call_RoundTrip01" }
        ]
      })
      expect(JSON.stringify(requests[1]?.body)).toContain("hello from the readme")
      expect(requests[1]?.toolResultIds).toEqual(["call_RoundTrip01"])
    }).pipe(Effect.scoped)
  })
})
