import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Fiber, Option, Queue, Redacted, Stream } from "effect"
import { makeConversation } from "../../../src/core/conversation.js"
import type { ModelRequest } from "../../../src/domain/model.js"
import * as OpenAI from "../../../src/layers/model/openai-compatible.js"
import { start } from "../../support/replay-server.js"
import { makeEventLog } from "./event-log.js"
import { ask, deadUrl, fastRetry, fixture, run, texts } from "./helpers.js"

const gateway = (url: string, overrides: Partial<OpenAI.OpenAIConfig> = {}) =>
  OpenAI.make({ baseUrl: `${url}/v1`, model: "gpt-4.1", apiKey: Redacted.make("sk-test"), retry: fastRetry, ...overrides }).pipe(
    Effect.provide(FetchHttpClient.layer)
  )

const serve = (name: string) => start(fixture("openai", name))

describe("OpenAI-compatible adapter against the replay server", () => {
  it.scopedLive("streams a plain text answer with usage from the final chunk", () =>
    Effect.gen(function* () {
      const server = yield* serve("plain-text")
      const model = yield* gateway(server.url)
      expect(model.info).toMatchObject({ id: "openai/gpt-4.1", provider: "openai", api: "chat-completions" })
      const { events, error } = yield* run(model.stream(ask("Say hello")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "TextDelta", text: "Hello" },
        { _tag: "TextDelta", text: ", world" },
        { _tag: "TextDelta", text: "!" },
        { _tag: "Completed", stopReason: "final", usage: { inputTokens: 21, outputTokens: 6, cacheReadTokens: 1500 } }
      ])
      const [request] = yield* server.requests
      expect(request?.path).toBe("/v1/chat/completions")
      expect(request?.headers["authorization"]).toBe("Bearer sk-test")
      expect(request?.body).toEqual({
        model: "gpt-4.1",
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          { role: "system", content: "You are a test." },
          { role: "user", content: "Say hello" }
        ]
      })
    }))

  it.scopedLive("sends no Authorization header without a key (local servers), and max_tokens when configured", () =>
    Effect.gen(function* () {
      const server = yield* serve("plain-text")
      const model = yield* OpenAI.make({ baseUrl: server.url, model: "llama3.1", maxOutputTokens: 256, retry: fastRetry }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
      const { error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      const [request] = yield* server.requests
      expect(request?.path).toBe("/chat/completions")
      expect(request?.headers["authorization"]).toBeUndefined()
      expect(request?.body).toMatchObject({ model: "llama3.1", max_tokens: 256 })
    }))

  it.scopedLive("assembles a tool call whose arguments arrive in many fragments", () =>
    Effect.gen(function* () {
      const server = yield* serve("tool-call-fragments")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Read src/main.ts")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "TextDelta", text: "Let me read it." },
        {
          _tag: "ToolCall",
          toolCallId: "call_ReadFile01",
          name: "read_file",
          input: { path: "src/main.ts", lines: { from: 10, to: 40 }, note: "café \"quoted\"" }
        },
        { _tag: "Completed", stopReason: "tool_calls", usage: { inputTokens: 310, outputTokens: 48 } }
      ])
    }))

  it.scopedLive("assembles several interleaved tool calls by index", () =>
    Effect.gen(function* () {
      const server = yield* serve("several-tool-calls")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Look around")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "ToolCall", toolCallId: "call_First01", name: "read_file", input: { path: "a.txt" } },
        { _tag: "ToolCall", toolCallId: "call_Second02", name: "list_dir", input: { path: "." } },
        { _tag: "ToolCall", toolCallId: "call_NoArgs03", name: "git_status", input: {} },
        { _tag: "Completed", stopReason: "tool_calls", usage: { inputTokens: 402, outputTokens: 77 } }
      ])
    }))

  it.scopedLive("streams reasoning deltas (reasoning_content and reasoning) as thinking, then text", () =>
    Effect.gen(function* () {
      const server = yield* serve("reasoning-then-text")
      const model = yield* gateway(server.url, { model: "qwen3:8b" })
      const { events, error } = yield* run(model.stream(ask("What is 2 + 2?")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "ThinkingDelta", text: "The user wants a sum. " },
        { _tag: "ThinkingDelta", text: "2 + 2 = 4." },
        { _tag: "ThinkingDelta", text: " Double-checked." },
        { _tag: "TextDelta", text: "It is 4." },
        { _tag: "Completed", stopReason: "final", usage: { inputTokens: 50, outputTokens: 30 } }
      ])
    }))

  it.scopedLive("handles a local server that says `stop` for tool calls and omits usage and [DONE]", () =>
    Effect.gen(function* () {
      const server = yield* serve("local-server-quirks")
      const model = yield* gateway(server.url, { model: "llama3.1" })
      const { events, error } = yield* run(model.stream(ask("Read the README")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "ToolCall", toolCallId: "call_ollama_1", name: "read_file", input: { path: "README.md" } },
        { _tag: "Completed", stopReason: "tool_calls", usage: { inputTokens: 0, outputTokens: 0 } }
      ])
    }))

  it.scopedLive("maps finish_reason length to max_tokens", () =>
    Effect.gen(function* () {
      const server = yield* serve("max-tokens")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Tell me a story")))
      expect(error).toBeUndefined()
      expect(events.at(-1)).toEqual({ _tag: "Completed", stopReason: "max_tokens", usage: { inputTokens: 12, outputTokens: 16 } })
    }))

  it.scopedLive("retries a 429 and succeeds: the server saw exactly two requests", () =>
    Effect.gen(function* () {
      const server = yield* serve("rate-limit-then-success")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(texts(events)).toBe("Second time lucky.")
      expect((yield* server.requests).length).toBe(2)
    }))

  it.scopedLive("retries an overload error in the stream that came before any content", () =>
    Effect.gen(function* () {
      const server = yield* serve("overload-before-content")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(texts(events)).toBe("Recovered.")
      expect((yield* server.requests).length).toBe(2)
    }))

  it.scopedLive("fails with overloaded after content, keeping the deltas and not retrying", () =>
    Effect.gen(function* () {
      const server = yield* serve("overload-after-content")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([
        { _tag: "TextDelta", text: "Partial " },
        { _tag: "TextDelta", text: "answer" }
      ])
      expect(error?.code).toBe("overloaded")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("retries a connection dropped before any content", () =>
    Effect.gen(function* () {
      const server = yield* serve("dropped-then-success")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(texts(events)).toBe("Reconnected.")
      expect((yield* server.requests).length).toBe(2)
    }))

  it.scopedLive("fails with network after the budget when nothing listens", () =>
    Effect.gen(function* () {
      const model = yield* gateway(yield* deadUrl, { retry: { ...fastRetry, maxAttempts: 2 } })
      const { error } = yield* run(model.stream(ask("Hi")))
      expect(error?.code).toBe("network")
      expect(error?.message).toContain("could not reach")
      expect(error?.message).toContain("after 2 attempts")
    }))

  it.scopedLive("maps a 401 to a typed auth error naming OPENAI_API_KEY, without retrying", () =>
    Effect.gen(function* () {
      const server = yield* serve("unauthorized")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([])
      expect(error?.code).toBe("auth")
      expect(error?.status).toBe(401)
      expect(error?.message).toContain("Incorrect API key provided")
      expect(error?.message).toContain("OPENAI_API_KEY")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("maps context_length_exceeded to context_overflow", () =>
    Effect.gen(function* () {
      const server = yield* serve("prompt-too-long")
      const model = yield* gateway(server.url)
      const { error } = yield* run(model.stream(ask("Hi")))
      expect(error?.code).toBe("context_overflow")
      expect(error?.message).toContain("maximum context length")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("refuses a prompt over the window in preflight: the server sees zero requests", () =>
    Effect.gen(function* () {
      const server = yield* serve("plain-text")
      const model = yield* gateway(server.url, { model: "llama3.1", contextWindow: 4_096, maxOutputTokens: 1_024 })
      const { events, error } = yield* run(model.stream(ask("word ".repeat(2_000))))
      expect(events).toEqual([])
      expect(error?.code).toBe("context_overflow")
      expect((yield* server.requests).length).toBe(0)
    }))

  it.scopedLive("fails with invalid_response when tool arguments are not JSON", () =>
    Effect.gen(function* () {
      const server = yield* serve("invalid-tool-json")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([])
      expect(error?.code).toBe("invalid_response")
      expect(error?.message).toContain("call_Broken01")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("says so when the server answers with one JSON document instead of a stream", () =>
    Effect.gen(function* () {
      const server = yield* serve("not-streaming")
      const model = yield* gateway(server.url)
      const { error } = yield* run(model.stream(ask("Hi")))
      expect(error?.code).toBe("invalid_response")
      expect(error?.message).toContain("text/event-stream")
      expect((yield* server.requests).length).toBe(1)
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

  it.scopedLive("after a tool round trip, the rebuilt conversation pairs tool_calls and tool messages by id", () =>
    Effect.gen(function* () {
      const server = yield* serve("tool-round-trip")
      const model = yield* gateway(server.url)
      const log = makeEventLog()
      log.userMessage("What does README.md say?")
      const request = (): ModelRequest => {
        const builder = makeConversation()
        for (const event of log.events) builder.apply(event)
        return {
          ...ask(""),
          messages: builder.snapshot(),
          tools: [{ name: "read_file", description: "Read a file.", inputSchema: { type: "object", properties: { path: { type: "string" } } } }]
        }
      }
      const first = yield* run(model.stream(request()))
      expect(first.error).toBeUndefined()
      for (const event of first.events) log.model(event)
      log.toolCompleted("call_RoundTrip01", "# Hello from the README")
      const second = yield* run(model.stream(request()))
      expect(second.error).toBeUndefined()
      expect(texts(second.events)).toBe("The README says hello.")
      const summary = yield* server.summary
      expect(summary.toolResultsSeen).toBe(1)
      expect(summary.requests[1]?.body).toMatchObject({
        tools: [{ type: "function", function: { name: "read_file", description: "Read a file.", parameters: { type: "object" } } }],
        messages: [
          { role: "system", content: "You are a test." },
          { role: "user", content: "What does README.md say?" },
          {
            role: "assistant",
            content: "Reading README.md.",
            tool_calls: [{ id: "call_RoundTrip01", type: "function", function: { name: "read_file", arguments: "{\"path\":\"README.md\"}" } }]
          },
          { role: "tool", tool_call_id: "call_RoundTrip01", content: "# Hello from the README" }
        ]
      })
    }))
})

describe("OpenAI-compatible configuration", () => {
  const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

  it.effect("defaults to api.openai.com and needs no key", () =>
    Effect.gen(function* () {
      const config = yield* OpenAI.configFromEnv({ model: "llama3.1" }).pipe(withEnv({}))
      expect(config).toEqual({ baseUrl: "https://api.openai.com/v1", model: "llama3.1" })
    }))

  it.effect("reads OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_CONTEXT_WINDOW", () =>
    Effect.gen(function* () {
      const config = yield* OpenAI.configFromEnv({ model: "llama3.1" }).pipe(
        withEnv({ OPENAI_BASE_URL: "http://localhost:11434/v1/", OPENAI_API_KEY: "ollama", OPENAI_CONTEXT_WINDOW: "8192" })
      )
      expect(config.baseUrl).toBe("http://localhost:11434/v1")
      expect(Option.fromNullable(config.apiKey).pipe(Option.map(Redacted.value))).toEqual(Option.some("ollama"))
      expect(config.contextWindow).toBe(8192)
    }))

  it.effect("names the variable when a value is malformed", () =>
    Effect.gen(function* () {
      const error = yield* OpenAI.configFromEnv({ model: "m" }).pipe(withEnv({ OPENAI_CONTEXT_WINDOW: "lots" }), Effect.flip)
      expect(error.variable).toBe("OPENAI_CONTEXT_WINDOW")
      expect(error.message).toContain("OPENAI_CONTEXT_WINDOW")
    }))
})
