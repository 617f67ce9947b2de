import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, FastCheck } from "effect"
import type { ModelInfo, ModelRequest } from "../../../src/domain/model.js"
import { anthropicProfile, openaiProfile } from "../../../src/layers/model/model-catalog.js"
import { estimatePromptTokens } from "../../../src/domain/tokens.js"
import { checkContextWindow } from "../../../src/layers/model/preflight.js"
import { ask } from "./helpers.js"

const info = (contextWindow: number): ModelInfo => ({
  id: "test/model",
  provider: "test",
  contextWindow,
  maxOutputTokens: 100,
  capabilities: { streaming: true, toolCalls: true, thinking: false, images: false }
})

describe("token estimate", () => {
  it("counts text at the given characters per token plus framing", () => {
    const request: ModelRequest = { sessionId: "s", system: "", messages: [{ role: "user", content: [{ _tag: "text", text: "x".repeat(300) }] }], tools: [] }
    // 300 chars / 3 = 100, + 32 request + 8 message + 4 part.
    expect(estimatePromptTokens(request, 3)).toBe(144)
    expect(estimatePromptTokens(request, 2.5)).toBe(164)
  })

  it("counts system, thinking, tool calls, tool results and tool definitions", () => {
    const base = estimatePromptTokens(ask(""), 3)
    const full: ModelRequest = {
      ...ask(""),
      messages: [
        { role: "user", content: [{ _tag: "text", text: "" }] },
        {
          role: "assistant",
          content: [
            { _tag: "thinking", text: "t".repeat(90), redacted: "r".repeat(30) },
            { _tag: "tool_call", toolCallId: "id", name: "read_file", input: { path: "p".repeat(300) } }
          ]
        },
        { role: "user", content: [{ _tag: "tool_result", toolCallId: "id", output: "o".repeat(600), isError: false }] }
      ],
      tools: [{ name: "read_file", description: "d".repeat(60), inputSchema: { type: "object" } }]
    }
    const estimate = estimatePromptTokens(full, 3)
    // Every character listed must count: at least (90 + 30 + 300 + 600 + 60) / 3 = 360 more than the bare request.
    expect(estimate - base).toBeGreaterThan(360)
  })

  it.prop("grows with every message added", { first: FastCheck.string(), second: FastCheck.string() }, ({ first, second }) => {
    const one = ask(first)
    const two: ModelRequest = { ...one, messages: [...one.messages, { role: "assistant", content: [{ _tag: "text", text: second }] }] }
    expect(estimatePromptTokens(two, 3)).toBeGreaterThan(estimatePromptTokens(one, 3))
  })
})

describe("checkContextWindow", () => {
  it.effect("passes a prompt that fits with its reserved output", () =>
    checkContextWindow({ request: ask("hello"), info: info(1_000), reservedOutputTokens: 500, charsPerToken: 3 }))

  it.effect("fails with context_overflow when prompt + reserved output exceed the window", () =>
    Effect.gen(function* () {
      const request = ask("x".repeat(3_000))
      const estimate = estimatePromptTokens(request, 3)
      const fits = yield* Effect.exit(checkContextWindow({ request, info: info(estimate + 100), reservedOutputTokens: 100, charsPerToken: 3 }))
      expect(Exit.isSuccess(fits)).toBe(true)
      const error = yield* Effect.flip(checkContextWindow({ request, info: info(estimate + 99), reservedOutputTokens: 100, charsPerToken: 3 }))
      expect(error.code).toBe("context_overflow")
      expect(error.message).toContain(`about ${estimate} tokens`)
      expect(error.message).toContain("test/model")
    }))
})

describe("model catalogue", () => {
  it("knows current Claude models, with or without a date suffix", () => {
    expect(anthropicProfile("claude-sonnet-5-5").contextWindow).toBe(1_000_000)
    expect(anthropicProfile("claude-haiku-4-5-20251001")).toMatchObject({ contextWindow: 200_000, thinking: "budget" })
  })

  it("is conservative about unknown models", () => {
    expect(anthropicProfile("claude-future-9")).toMatchObject({ contextWindow: 200_000, charsPerToken: 2.5 })
    expect(openaiProfile("llama3.1:8b").contextWindow).toBe(32_768)
  })

  it("matches OpenAI families by their longest prefix", () => {
    expect(openaiProfile("gpt-4o-mini-2024-07-18").contextWindow).toBe(128_000)
    expect(openaiProfile("gpt-4.1-nano").contextWindow).toBe(1_047_576)
  })
})
