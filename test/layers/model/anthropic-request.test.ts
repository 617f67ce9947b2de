import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { makeConversation } from "../../../src/core/conversation.js"
import type { ModelRequest } from "../../../src/domain/model.js"
import * as Anthropic from "../../../src/layers/model/anthropic.js"
import { toAnthropicMessages } from "../../../src/layers/model/anthropic-request.js"
import { start } from "../../support/replay-server.js"
import { makeEventLog } from "./event-log.js"
import { ask, fastRetry, fixture, run } from "./helpers.js"

const gateway = (url: string) =>
  Anthropic.make({ apiKey: Redacted.make("sk-ant-test"), baseUrl: url, model: "claude-sonnet-5-5", maxOutputTokens: 1024, retry: fastRetry })

const readFileTool = {
  name: "read_file",
  description: "Read a file in the workspace.",
  inputSchema: {
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    required: ["path"],
    properties: { path: { type: "string" } },
    additionalProperties: false
  }
}

describe("Anthropic request mapping", () => {
  it.scopedLive("sends text, signed thinking, tool_use and the paired tool_result in order", () =>
    Effect.gen(function* () {
      const server = yield* start(fixture("anthropic", "plain-text"))
      const model = yield* gateway(server.url)
      const request: ModelRequest = {
        sessionId: "s1",
        system: "Be brief.",
        tools: [readFileTool],
        messages: [
          { role: "user", content: [{ _tag: "text", text: "What does README.md say?" }] },
          {
            role: "assistant",
            content: [
              { _tag: "thinking", text: "Read it first.", signature: "sig-1" },
              { _tag: "thinking", text: "unsigned thoughts from elsewhere" },
              { _tag: "text", text: "" },
              { _tag: "text", text: "Reading it." },
              { _tag: "tool_call", toolCallId: "toolu_A", name: "read_file", input: { path: "README.md" } },
              { _tag: "tool_call", toolCallId: "toolu_B", name: "read_file", input: { path: "missing.md" } }
            ]
          },
          {
            role: "user",
            content: [
              { _tag: "text", text: "Also, hurry." },
              { _tag: "tool_result", toolCallId: "toolu_A", output: "# Hello", isError: false },
              { _tag: "tool_result", toolCallId: "toolu_B", output: "no such file", isError: true }
            ]
          }
        ]
      }
      const { error } = yield* run(model.stream(request))
      expect(error).toBeUndefined()
      const [received] = yield* server.requests
      expect(received?.body).toMatchObject({
        system: "Be brief.",
        tools: [
          {
            name: "read_file",
            description: "Read a file in the workspace.",
            input_schema: { type: "object", required: ["path"], properties: { path: { type: "string" } }, additionalProperties: false }
          }
        ],
        messages: [
          { role: "user", content: [{ type: "text", text: "What does README.md say?" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "Read it first.", signature: "sig-1" },
              { type: "text", text: "Reading it." },
              { type: "tool_use", id: "toolu_A", name: "read_file", input: { path: "README.md" } },
              { type: "tool_use", id: "toolu_B", name: "read_file", input: { path: "missing.md" } }
            ]
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "toolu_A", content: "# Hello" },
              { type: "tool_result", tool_use_id: "toolu_B", content: "no such file", is_error: true },
              { type: "text", text: "Also, hurry." }
            ]
          }
        ]
      })
      expect(JSON.stringify(received?.body)).not.toContain("$schema")
      expect(JSON.stringify(received?.body)).not.toContain("unsigned thoughts")
    }))

  it.scopedLive("after a tool round trip, the conversation rebuilt from the event log pairs tool_use and tool_result by id", () =>
    Effect.gen(function* () {
      const server = yield* start(fixture("anthropic", "tool-round-trip"))
      const model = yield* gateway(server.url)
      const log = makeEventLog()
      log.userMessage("What does README.md say?")
      const conversation = () => {
        const builder = makeConversation()
        for (const event of log.events) builder.apply(event)
        return builder.snapshot()
      }
      const request = (): ModelRequest => ({ ...ask(""), tools: [readFileTool], messages: conversation() })

      const first = yield* run(model.stream(request()))
      expect(first.error).toBeUndefined()
      for (const event of first.events) log.model(event)
      const call = first.events.find((event) => event._tag === "ToolCall")
      expect(call).toEqual({ _tag: "ToolCall", toolCallId: "toolu_01RoundTrip", name: "read_file", input: { path: "README.md" } })
      log.toolCompleted("toolu_01RoundTrip", "# Hello from the README")

      const second = yield* run(model.stream(request()))
      expect(second.error).toBeUndefined()

      const summary = yield* server.summary
      expect(summary.served).toBe(2)
      expect(summary.toolResultsSeen).toBe(1)
      expect(summary.requests[1]?.body).toMatchObject({
        messages: [
          { role: "user", content: [{ type: "text", text: "What does README.md say?" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "I should look at the file first.", signature: "EqQBCkgIARABGAIiQRoundTripSig" },
              { type: "text", text: "Reading README.md." },
              { type: "tool_use", id: "toolu_01RoundTrip", name: "read_file", input: { path: "README.md" } }
            ]
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01RoundTrip", content: "# Hello from the README" }] }
        ]
      })
    }))

  it("drops messages left empty and sends a redacted block as redacted_thinking", () => {
    const messages = toAnthropicMessages({
      ...ask("hi"),
      messages: [
        { role: "user", content: [{ _tag: "text", text: "hi" }] },
        { role: "assistant", content: [{ _tag: "text", text: "  " }] },
        { role: "assistant", content: [{ _tag: "thinking", text: "", redacted: "opaque" }, { _tag: "text", text: "ok" }] }
      ]
    })
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "redacted_thinking", data: "opaque" }, { type: "text", text: "ok" }] }
    ])
  })

  it("drops OpenAI's encrypted reasoning (a session that changed provider): Anthropic could not verify it", () => {
    const messages = toAnthropicMessages({
      ...ask("hi"),
      messages: [
        { role: "user", content: [{ _tag: "text", text: "hi" }] },
        { role: "assistant", content: [{ _tag: "thinking", text: "Summary.", encryptedReasoning: "gAAAAB-enc" }, { _tag: "text", text: "ok" }] }
      ]
    })
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "ok" }] }
    ])
  })
})
