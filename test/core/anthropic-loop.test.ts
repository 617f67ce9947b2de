import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Stream } from "effect"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import * as Anthropic from "../../src/layers/model/anthropic.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { ModelGateway } from "../../src/services/ModelGateway.js"
import { engineLayer, replayAll, types } from "../support/engine-harness.js"
import * as Replay from "../support/replay-server.js"

const workspaces: Array<string> = []
afterAll(() => {
  for (const dir of workspaces) rmSync(dir, { recursive: true, force: true })
})

const fixture = resolve(import.meta.dirname, "../fixtures/anthropic/tool-round-trip.json")

describe("the agent loop against the real Anthropic SDK and a replay server", () => {
  it.live("a tool round trip: the second request carries the conversation rebuilt from the log, tool_use and tool_result paired", () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "anthropic-loop-")))
    workspaces.push(cwd)
    writeFileSync(join(cwd, "README.md"), "hello from the readme\n")
    return Effect.gen(function* () {
      const server = yield* Replay.start(fixture)
      const model = Layer.scoped(
        ModelGateway,
        Anthropic.make({ apiKey: Redacted.make("sk-ant-test"), baseUrl: server.url, model: "claude-sonnet-5-5", maxOutputTokens: 1024 })
      )
      const events = yield* Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd, client: "test" })
        yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "What does the README say?" }))
        return yield* replayAll(header.sessionId)
      }).pipe(Effect.provide(engineLayer(MemoryStore.layer, undefined, { tools: localTools(sandboxOff), model })))

      expect(types(events)).toContain("tool.completed")
      const reply = events.map((e) => (e.type === "model.delta" ? e.payload.text : "")).join("")
      expect(reply).toBe("Reading README.md.The README says hello.")
      expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })

      const requests = yield* server.requests
      expect(requests).toHaveLength(2)
      const first = requests[0]?.body
      const second = requests[1]?.body
      // Tool definitions are derived from the tool schemas, the same in every request.
      expect(first).toMatchObject({ tools: expect.arrayContaining([expect.objectContaining({ name: "read_file" })]) })
      expect(second).toMatchObject({
        messages: [
          { role: "user", content: [{ type: "text", text: "What does the README say?" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "I should look at the file first.", signature: "EqQBCkgIARABGAIiQRoundTripSig" },
              { type: "text", text: "Reading README.md." },
              { type: "tool_use", id: "toolu_01RoundTrip", name: "read_file", input: { path: "README.md" } }
            ]
          },
          { role: "user", content: [expect.objectContaining({ type: "tool_result", tool_use_id: "toolu_01RoundTrip" })] }
        ]
      })
      expect(JSON.stringify(second)).toContain("hello from the readme")
      expect(requests[1]?.toolResultIds).toEqual(["toolu_01RoundTrip"])
    }).pipe(Effect.scoped)
  })
})
