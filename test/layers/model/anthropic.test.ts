import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Fiber, Layer, Queue, Redacted, Schema, Stream } from "effect"
import * as Anthropic from "../../../src/layers/model/anthropic.js"
import { Fixture, type FixtureInput } from "../../support/replay-fixture.js"
import { start } from "../../support/replay-server.js"
import { ask, deadUrl, fastRetry, fixture, run, texts } from "./helpers.js"

const gateway = (url: string, overrides: Partial<Anthropic.AnthropicConfig> = {}) =>
  Anthropic.make({
    apiKey: Redacted.make("sk-ant-test"),
    baseUrl: url,
    model: "claude-sonnet-5-5",
    maxOutputTokens: 1024,
    retry: fastRetry,
    ...overrides
  })

const serve = (name: string) => start(fixture("anthropic", name))

describe("Anthropic adapter against the replay server", () => {
  it.scopedLive("streams a plain text answer with usage, cache tokens included", () =>
    Effect.gen(function* () {
      const server = yield* serve("plain-text")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Say hello")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "TextDelta", text: "Hello" },
        { _tag: "TextDelta", text: ", world" },
        { _tag: "TextDelta", text: "!" },
        {
          _tag: "Completed",
          stopReason: "final",
          usage: { inputTokens: 21, outputTokens: 6, cacheReadTokens: 1500, cacheWriteTokens: 7 }
        }
      ])
      const [request] = yield* server.requests
      expect(request?.path).toBe("/v1/messages")
      expect(request?.headers).toMatchObject({
        "anthropic-version": Anthropic.ANTHROPIC_API_VERSION,
        authorization: "Bearer sk-ant-test",
        "content-type": "application/json",
        accept: "text/event-stream"
      })
      expect(request?.body).toMatchObject({
        model: "claude-sonnet-5-5",
        max_tokens: 1024,
        stream: true,
        system: "You are a test.",
        cache_control: { type: "ephemeral" },
        messages: [{ role: "user", content: [{ type: "text", text: "Say hello" }] }]
      })
    }))

  it.scopedLive("assembles a tool call whose JSON arrives in many fragments", () =>
    Effect.gen(function* () {
      const server = yield* serve("tool-call-fragments")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Read src/main.ts")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "TextDelta", text: "Let me read it." },
        {
          _tag: "ToolCall",
          toolCallId: "toolu_01ReadFile",
          name: "read_file",
          input: { path: "src/main.ts", lines: { from: 10, to: 40 }, note: "café \"quoted\"" }
        },
        { _tag: "Completed", stopReason: "tool_calls", usage: { inputTokens: 310, outputTokens: 48 } }
      ])
    }))

  it.scopedLive("emits several tool calls of one response in order, a call without input as {}", () =>
    Effect.gen(function* () {
      const server = yield* serve("several-tool-calls")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Look around")))
      expect(error).toBeUndefined()
      expect(events.filter((event) => event._tag === "ToolCall")).toEqual([
        { _tag: "ToolCall", toolCallId: "toolu_01First", name: "read_file", input: { path: "a.txt" } },
        { _tag: "ToolCall", toolCallId: "toolu_02Second", name: "list_dir", input: { path: "." } },
        { _tag: "ToolCall", toolCallId: "toolu_03NoArgs", name: "git_status", input: {} }
      ])
      expect(events.at(-1)).toMatchObject({ _tag: "Completed", stopReason: "tool_calls" })
    }))

  it.scopedLive("streams thinking with its signature, a redacted block, then text", () =>
    Effect.gen(function* () {
      const server = yield* serve("thinking-then-text")
      const model = yield* gateway(server.url, { thinkingBudget: 2048 })
      const { events, error } = yield* run(model.stream(ask("What is 2 + 2?")))
      expect(error).toBeUndefined()
      expect(events).toEqual([
        { _tag: "ThinkingDelta", text: "The user wants a sum. " },
        { _tag: "ThinkingDelta", text: "2 + 2 = 4." },
        { _tag: "ThinkingDelta", text: "", signature: "EqQBCkgIARABGAIiQGsig-replay-1" },
        { _tag: "ThinkingDelta", text: "", redacted: "EmwKAhgBEgy3va3pzix-redacted" },
        { _tag: "TextDelta", text: "It is 4." },
        { _tag: "Completed", stopReason: "final", usage: { inputTokens: 50, outputTokens: 30 } }
      ])
      const [request] = yield* server.requests
      // claude-sonnet-5-5 rejects a token budget: thinking is requested as adaptive.
      expect(request?.body).toMatchObject({ thinking: { type: "adaptive" } })
    }))

  it.scopedLive("leaves prompt caching out when it is off", () =>
    Effect.gen(function* () {
      const server = yield* serve("plain-text")
      const model = yield* gateway(server.url, { promptCaching: false })
      yield* run(model.stream(ask("Hi")))
      const [request] = yield* server.requests
      expect(request?.body).not.toHaveProperty("cache_control")
    }))

  it.scopedLive("sends a token budget to a model that takes one", () =>
    Effect.gen(function* () {
      const server = yield* serve("plain-text")
      const model = yield* gateway(server.url, { model: "claude-haiku-4-5-20251001", thinkingBudget: 4000, maxOutputTokens: 8000 })
      yield* run(model.stream(ask("Think")))
      const [request] = yield* server.requests
      expect(request?.body).toMatchObject({ max_tokens: 8000, thinking: { type: "enabled", budget_tokens: 4000 } })
    }))

  it.scopedLive("maps a max_tokens stop", () =>
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

  it.scopedLive("retries an overloaded_error event that came before any content", () =>
    Effect.gen(function* () {
      const server = yield* serve("overload-before-content")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(texts(events)).toBe("Recovered.")
      expect((yield* server.requests).length).toBe(2)
    }))

  it.scopedLive("fails with overloaded after content already streamed, keeping the deltas and not retrying", () =>
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

  it.scopedLive("gives up on 529 after the retry budget (4 attempts), never reaching a fifth", () =>
    Effect.gen(function* () {
      const server = yield* serve("overloaded-exhausted")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([])
      expect(error?.code).toBe("overloaded")
      expect(error?.status).toBe(529)
      expect(error?.message).toContain("after 4 attempts")
      expect((yield* server.requests).length).toBe(4)
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
      expect(error?.message).toContain("could not reach Anthropic")
      expect(error?.message).toContain("ECONNREFUSED")
      expect(error?.message).toContain("after 2 attempts")
    }))

  it.scopedLive("maps a 401 to a typed auth error naming the key variable, without retrying", () =>
    Effect.gen(function* () {
      const server = yield* serve("unauthorized")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([])
      expect(error?.code).toBe("auth")
      expect(error?.status).toBe(401)
      expect(error?.message).toContain("invalid x-api-key")
      expect(error?.message).toContain("ANTHROPIC_API_KEY")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("maps a 400 'prompt is too long' to context_overflow", () =>
    Effect.gen(function* () {
      const server = yield* serve("prompt-too-long")
      const model = yield* gateway(server.url)
      const { error } = yield* run(model.stream(ask("Hi")))
      expect(error?.code).toBe("context_overflow")
      expect(error?.message).toContain("prompt is too long")
      expect((yield* server.requests).length).toBe(1)
    }))

  it.scopedLive("refuses a prompt over the window in preflight: the server sees zero requests", () =>
    Effect.gen(function* () {
      const server = yield* serve("plain-text")
      const model = yield* gateway(server.url, { contextWindow: 2_000, maxOutputTokens: 500 })
      const { events, error } = yield* run(model.stream(ask("x".repeat(6_000))))
      expect(events).toEqual([])
      expect(error?.code).toBe("context_overflow")
      expect(error?.message).toContain("2000-token context window")
      expect((yield* server.requests).length).toBe(0)
    }))

  it.scopedLive("fails with invalid_response when tool input is not JSON", () =>
    Effect.gen(function* () {
      const server = yield* serve("invalid-tool-json")
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([])
      expect(error?.code).toBe("invalid_response")
      expect(error?.message).toContain("toolu_01Broken")
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
})

const serveInline = (responses: FixtureInput["responses"]) =>
  start(Schema.decodeUnknownSync(Fixture)({ format: "anthropic", responses }))

const messageStart = { event: "message_start", data: { type: "message_start", message: { id: "msg_1", usage: { input_tokens: 5, output_tokens: 1 } } } }
const textBlock = (text: string) => [
  { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
  { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } },
  { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } }
]
const messageEnd = [
  { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } } },
  { event: "message_stop", data: { type: "message_stop" } }
]

describe("Anthropic adapter: reading the answer", () => {
  it.scopedLive("skips pings, events without a name and event types it does not use", () =>
    Effect.gen(function* () {
      const server = yield* serveInline([
        {
          kind: "stream",
          events: [
            messageStart,
            { event: "ping", data: { type: "ping" } },
            { data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "unnamed" } } },
            { event: "a_future_event", data: { type: "a_future_event" } },
            ...textBlock("Only this."),
            ...messageEnd
          ]
        }
      ])
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(texts(events)).toBe("Only this.")
      expect(events.at(-1)).toEqual({ _tag: "Completed", stopReason: "final", usage: { inputTokens: 5, outputTokens: 2 } })
    }))

  it.scopedLive("an event that is not JSON, or lacks a field the adapter reads, is an invalid response and is not retried", () =>
    Effect.gen(function* () {
      for (const bad of [
        { event: "content_block_start", data: "{not json" },
        { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta" } } }
      ]) {
        const server = yield* serveInline([
          { kind: "stream", events: [messageStart, bad, ...messageEnd] },
          { kind: "stream", events: [messageStart, ...textBlock("never"), ...messageEnd] }
        ])
        const model = yield* gateway(server.url)
        const { events, error } = yield* run(model.stream(ask("Hi")))
        expect(events).toEqual([])
        expect(error?.code).toBe("invalid_response")
        expect(error?.message).toMatch(/not JSON|content_block_delta event has no valid text/)
        expect((yield* server.requests).length).toBe(1)
      }
    }))

  it.scopedLive("an HTTP error whose body is not Anthropic's error JSON is quoted; a 5xx is retried", () =>
    Effect.gen(function* () {
      const server = yield* serveInline([
        { kind: "error", status: 502, body: "Bad gateway from the proxy" },
        { kind: "error", status: 503, body: { unexpected: true } }
      ])
      const model = yield* gateway(server.url, { retry: { ...fastRetry, maxAttempts: 2 } })
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(events).toEqual([])
      expect(error?.status).toBe(503)
      expect(error?.message).toContain("unexpected")
      expect(error?.message).toContain("after 2 attempts")
      expect((yield* server.requests).length).toBe(2)
    }))

  it.scopedLive("a stream that ends without message_stop is cut: retried before any content", () =>
    Effect.gen(function* () {
      const server = yield* serveInline([
        { kind: "stream", events: [messageStart] },
        { kind: "stream", events: [messageStart, ...textBlock("Whole."), ...messageEnd] }
      ])
      const model = yield* gateway(server.url)
      const { events, error } = yield* run(model.stream(ask("Hi")))
      expect(error).toBeUndefined()
      expect(texts(events)).toBe("Whole.")
      expect((yield* server.requests).length).toBe(2)
    }))
})

describe("Anthropic configuration", () => {
  const withEnv = (env: Record<string, string>) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))

  it.effect("a missing key is one clear error naming ANTHROPIC_API_KEY", () =>
    Effect.gen(function* () {
      const error = yield* Anthropic.configFromEnv().pipe(withEnv({}), Effect.flip)
      expect(error._tag).toBe("ModelConfigError")
      expect(error.variable).toBe("ANTHROPIC_API_KEY")
      expect(error.message).toBe("ANTHROPIC_API_KEY is not set")
    }))

  it.effect("a blank key counts as missing", () =>
    Effect.gen(function* () {
      const error = yield* Anthropic.configFromEnv().pipe(withEnv({ ANTHROPIC_API_KEY: "  " }), Effect.flip)
      expect(error.message).toBe("ANTHROPIC_API_KEY is not set")
    }))

  it.effect("honours ANTHROPIC_BASE_URL and defaults the model", () =>
    Effect.gen(function* () {
      const config = yield* Anthropic.configFromEnv().pipe(
        withEnv({ ANTHROPIC_API_KEY: "sk-ant-x", ANTHROPIC_BASE_URL: "http://127.0.0.1:8080/" })
      )
      expect(config.baseUrl).toBe("http://127.0.0.1:8080")
      expect(config.model).toBe("claude-sonnet-5-5")
      expect(Redacted.value(config.apiKey)).toBe("sk-ant-x")
      expect(String(config.apiKey)).not.toContain("sk-ant-x")
    }))

  it.effect("rejects a base URL that is not http(s)", () =>
    Effect.gen(function* () {
      const error = yield* Anthropic.configFromEnv().pipe(
        withEnv({ ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "localhost:8080" }),
        Effect.flip
      )
      expect(error.variable).toBe("ANTHROPIC_BASE_URL")
    }))

  it.effect("layerFromEnv fails before any request when the key is missing", () =>
    Effect.gen(function* () {
      const error = yield* Effect.scoped(Layer.build(Anthropic.layerFromEnv())).pipe(withEnv({}), Effect.flip)
      expect(error).toMatchObject({ _tag: "ModelConfigError", variable: "ANTHROPIC_API_KEY" })
    }))

  it.scoped("declares the model's window and capabilities", () =>
    Effect.gen(function* () {
      const model = yield* gateway("http://127.0.0.1:9")
      expect(model.info).toEqual({
        id: "anthropic/claude-sonnet-5-5",
        provider: "anthropic",
        contextWindow: 1_000_000,
        maxOutputTokens: 1024,
        capabilities: { streaming: true, toolCalls: true, thinking: true, images: true }
      })
    }))
})
