import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Queue, Redacted, Stream } from "effect"
import { makeConversation } from "../../../src/core/conversation.js"
import type { ModelRequest } from "../../../src/domain/model.js"
import type { OpenAIConfig } from "../../../src/layers/model/openai-config.js"
import * as Responses from "../../../src/layers/model/openai-responses.js"
import { toResponsesRequest, makeResponsesBodyEncoder } from "../../../src/layers/model/openai-responses-request.js"
import { start } from "../../support/replay-server.js"
import { makeEventLog } from "./event-log.js"
import { ask, fastRetry, fixture, run, texts } from "./helpers.js"

// The fixtures (test/fixtures/openai-responses/) are written by hand after OpenAI's API
// reference for the Responses API's streaming events; each names its source.

const gateway = (url: string, overrides: Partial<OpenAIConfig> = {}) =>
  Responses.make({ baseUrl: `${url}/v1`, model: "gpt-5.4", apiKey: Redacted.make("sk-test"), retry: fastRetry, ...overrides }).pipe(
    Effect.provide(FetchHttpClient.layer)
  )

const serve = (name: string) => start(fixture("openai-responses", name))

const readFile = { name: "read_file", description: "Read a file.", inputSchema: { type: "object", properties: { path: { type: "string" } } } }

describe("OpenAI Responses adapter against the replay server", () => {
  it.scopedLive("streams text; usage keeps cached tokens apart from input tokens", () =>
    Effect.gen(function* () {
      const server = yield* serve("plain-text")
      const model = yield* gateway(server.url)
      expect(model.info).toMatchObject({ id: "openai/gpt-5.4", provider: "openai", api: "responses" })
      const { events, error } = yield* run(model.stream(ask("Say hello")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "TextDelta", text: "Hello" },
        { _tag: "TextDelta", text: ", world" },
        { _tag: "TextDelta", text: "!" },
        { _tag: "Completed", stopReason: "final", usage: { inputTokens: 256, outputTokens: 12, cacheReadTokens: 1280, reasoningTokens: 0 } }
      ])
      const [request] = yield* server.requests
      expect(request?.path).toBe("/v1/responses")
      expect(request?.headers["authorization"]).toBe("Bearer sk-test")
      expect(request?.body).toEqual({
        model: "gpt-5.4",
        instructions: "You are a test.",
        input: [{ role: "user", content: "Say hello" }],
        stream: true,
        store: false,
        reasoning: { summary: "auto" },
        include: ["reasoning.encrypted_content"]
      })
    }))

  it.scopedLive("asks a model without reasoning for neither summaries nor encrypted reasoning, and sends max_output_tokens", () =>
    Effect.gen(function* () {
      const server = yield* serve("plain-text")
      const model = yield* gateway(server.url, { model: "gpt-4.1", maxOutputTokens: 256 })
      const { error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      const [request] = yield* server.requests
      expect(request?.body).toEqual({
        model: "gpt-4.1",
        instructions: "You are a test.",
        input: [{ role: "user", content: "Hi" }],
        stream: true,
        store: false,
        max_output_tokens: 256
      })
    }))

  it.scopedLive("streams reasoning summary parts as thinking, then the item's encrypted content, then text", () =>
    Effect.gen(function* () {
      const server = yield* serve("reasoning-then-text")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("What is 2 + 2?")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "ThinkingDelta", text: "**Adding** " },
        { _tag: "ThinkingDelta", text: "two numbers" },
        { _tag: "ThinkingDelta", text: "\n\n2 + 2 = 4." },
        { _tag: "ThinkingDelta", text: "", encryptedReasoning: "gAAAAB-encrypted-reason-1" },
        { _tag: "TextDelta", text: "It is 4." },
        { _tag: "Completed", stopReason: "final", usage: { inputTokens: 60, outputTokens: 140, cacheReadTokens: 0, reasoningTokens: 128 } }
      ])
    }))

  it.scopedLive("a tool round trip: the next request sends the reasoning item back with its encrypted content, then the call and its output", () =>
    Effect.gen(function* () {
      const server = yield* serve("tool-round-trip")
      const model = yield* gateway(server.url)
      const log = makeEventLog()
      log.userMessage("What does README.md say?")
      const request = (): ModelRequest => {
        const builder = makeConversation()
        for (const event of log.events) builder.apply(event)
        return { ...ask(""), messages: builder.snapshot(), tools: [readFile] }
      }
      const first = yield* run(model.stream(request()))
      expect(first.error).toBeUndefined()
      expect(first.events.filter((event) => event._tag !== "TextDelta" && event._tag !== "ThinkingDelta")).toEqual([
        { _tag: "ToolCall", toolCallId: "call_RoundTrip01", name: "read_file", input: { path: "README.md" } },
        { _tag: "Completed", stopReason: "tool_calls", usage: { inputTokens: 310, outputTokens: 96, cacheReadTokens: 0, reasoningTokens: 64 } }
      ])
      for (const event of first.events) log.model(event)
      log.toolCompleted("call_RoundTrip01", "# Hello from the README")
      const second = yield* run(model.stream(request()))
      expect(second.error).toBeUndefined()
      expect(texts(second.events)).toBe("The README says hello.")
      expect(second.events.at(-1)).toEqual({
        _tag: "Completed",
        stopReason: "final",
        usage: { inputTokens: 164, outputTokens: 30, cacheReadTokens: 256, reasoningTokens: 16 }
      })
      const summary = yield* server.summary
      expect(summary.toolResultsSeen).toBe(1)
      expect(summary.requests[1]?.body).toEqual({
        model: "gpt-5.4",
        instructions: "You are a test.",
        input: [
          { role: "user", content: "What does README.md say?" },
          { type: "reasoning", summary: [{ type: "summary_text", text: "Need to read the README." }], encrypted_content: "gAAAAB-encrypted-tool-step" },
          { role: "assistant", content: "Reading README.md." },
          { type: "function_call", call_id: "call_RoundTrip01", name: "read_file", arguments: "{\"path\":\"README.md\"}" },
          { type: "function_call_output", call_id: "call_RoundTrip01", output: "# Hello from the README" }
        ],
        stream: true,
        store: false,
        tools: [{ type: "function", name: "read_file", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } } }, strict: false }],
        reasoning: { summary: "auto" },
        include: ["reasoning.encrypted_content"]
      })
    }))

  it.scopedLive("retries a 429 (retry-after) and succeeds: the server saw exactly two requests", () =>
    Effect.gen(function* () {
      const server = yield* serve("rate-limit-then-success")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(texts(events)).toBe("Second time lucky.")
      expect((yield* server.requests).length).toBe(2)
    }))

  it.scopedLive("retries a 503 and succeeds", () =>
    Effect.gen(function* () {
      const server = yield* serve("overloaded-then-success")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(texts(events)).toBe("Back.")
      expect((yield* server.requests).length).toBe(2)
    }))

  it.scopedLive("retries a response.failed that came before any content", () =>
    Effect.gen(function* () {
      const server = yield* serve("failed-then-success")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(texts(events)).toBe("Recovered.")
      expect((yield* server.requests).length).toBe(2)
    }))

  it.scopedLive("fails with provider_error on a response.failed after content, keeping the deltas and not retrying", () =>
    Effect.gen(function* () {
      const server = yield* serve("failed-after-content")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([
        { _tag: "TextDelta", text: "Partial " },
        { _tag: "TextDelta", text: "answer" }
      ])
      expect(error?.code).toBe("provider_error")
      expect(error?.message).toContain("The server had an error")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("maps an error event with context_length_exceeded to context_overflow, not retried", () =>
    Effect.gen(function* () {
      const server = yield* serve("error-event-context-length")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([])
      expect(error?.code).toBe("context_overflow")
      expect(error?.message).toContain("exceeds the context window")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("maps a 400 context_length_exceeded to context_overflow", () =>
    Effect.gen(function* () {
      const server = yield* serve("context-length")
      const model = yield* gateway(server.url)
      const { error } = yield* run(model.stream(ask("Hi")))
      expect(error?.code).toBe("context_overflow")
      expect(error?.status).toBe(400)
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("maps a 401 to a typed auth error naming OPENAI_API_KEY, without retrying", () =>
    Effect.gen(function* () {
      const server = yield* serve("unauthorized")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([])
      expect(error?.code).toBe("auth")
      expect(error?.status).toBe(401)
      expect(error?.message).toContain("OpenAI rejected the API key")
      expect(error?.message).toContain("OPENAI_API_KEY")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("fails with invalid_response on malformed SSE data, without retrying", () =>
    Effect.gen(function* () {
      const server = yield* serve("malformed-sse")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([])
      expect(error?.code).toBe("invalid_response")
      expect(error?.message).toContain("not a Responses API event")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("maps response.incomplete (max_output_tokens) to max_tokens", () =>
    Effect.gen(function* () {
      const server = yield* serve("max-output-tokens")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Tell me a story")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "TextDelta", text: "Once upon a" },
        { _tag: "Completed", stopReason: "max_tokens", usage: { inputTokens: 12, outputTokens: 16, cacheReadTokens: 0, reasoningTokens: 0 } }
      ])
    }))

  it.scopedLive("aborts the HTTP request when the stream is interrupted mid-way", () =>
    Effect.gen(function* () {
      const server = yield* serve("hang")
      const model = yield* gateway(server.url)
      const received = yield* Queue.unbounded<string>()
      const fiber = yield* model.stream(ask("Think hard")).pipe(
        Stream.runForEach((event) => (event._tag === "TextDelta" ? Queue.offer(received, event.text) : Effect.void)),
        Effect.fork
      )
      expect(yield* Queue.take(received)).toBe("Thinking about it")
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      const record = yield* server.awaitClosed(0).pipe(Effect.timeout("5 seconds"))
      expect(record.closedByClient).toBe(true)
    }))

  it.scopedLive("a stream that ends before response.completed is retried before content", () =>
    Effect.gen(function* () {
      const server = yield* serve("truncated-then-success")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "TextDelta", text: "Whole." },
        { _tag: "Completed", stopReason: "final", usage: { inputTokens: 5, outputTokens: 1 } }
      ])
      expect((yield* server.requests).length).toBe(2)
    }))
})

describe("the Responses request body", () => {
  it("the encoder writes what toResponsesRequest states, and leaves out reasoning without encrypted content", () => {
    const request: ModelRequest = {
      ...ask("First"),
      messages: [
        { role: "user", content: [{ _tag: "text", text: "First" }] },
        {
          role: "assistant",
          content: [
            { _tag: "thinking", text: "Claude thought this", signature: "anthropic-signature" },
            { _tag: "thinking", text: "", encryptedReasoning: "gAAAAB-enc" },
            { _tag: "text", text: "Calling." },
            { _tag: "tool_call", toolCallId: "call_1", name: "read_file", input: { path: "a" } }
          ]
        },
        { role: "user", content: [{ _tag: "tool_result", toolCallId: "call_1", output: "no such file", isError: true }, { _tag: "text", text: "Go on" }] }
      ],
      tools: [readFile]
    }
    const options = { model: "gpt-5.4", reasoning: true, maxOutputTokens: 1000 }
    const stated = toResponsesRequest(request, options)
    expect(stated.input).toEqual([
      { role: "user", content: "First" },
      { type: "reasoning", summary: [], encrypted_content: "gAAAAB-enc" },
      { role: "assistant", content: "Calling." },
      { type: "function_call", call_id: "call_1", name: "read_file", arguments: "{\"path\":\"a\"}" },
      { type: "function_call_output", call_id: "call_1", output: "Error: no such file" },
      { role: "user", content: "Go on" }
    ])
    expect(JSON.parse(makeResponsesBodyEncoder()(request, options))).toEqual(stated)
  })
})
