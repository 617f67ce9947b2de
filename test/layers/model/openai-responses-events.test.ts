import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { ModelStreamEvent } from "../../../src/domain/model.js"
import { makeResponsesAssembler } from "../../../src/layers/model/openai-responses-events.js"

// Event shapes after OpenAI's API reference, the Responses API's streaming events.
const feed = (events: ReadonlyArray<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const assembler = makeResponsesAssembler()
    const out: Array<ModelStreamEvent> = []
    for (const event of events) {
      const result = yield* Effect.either(assembler.onEvent({ event: String(event.type), data: JSON.stringify(event) }))
      if (Either.isLeft(result)) return { out, failure: result.left, finished: assembler.finished() }
      out.push(...result.right)
    }
    const end = yield* Effect.either(assembler.end)
    return { out, failure: Either.isLeft(end) ? end.left : undefined, finished: assembler.finished() }
  })

const completed = { type: "response.completed", response: { status: "completed", usage: { input_tokens: 10, output_tokens: 2 } } }

describe("the Responses API's events, normalized", () => {
  it.effect("a refusal streams as text and stops with refusal", () =>
    Effect.gen(function* () {
      const { out, failure } = yield* feed([{ type: "response.refusal.delta", output_index: 0, delta: "I can't help with that." }, completed])
      expect(failure).toBeUndefined()
      expect(out).toEqual([
        { _tag: "TextDelta", text: "I can't help with that." },
        { _tag: "Completed", stopReason: "refusal", usage: { inputTokens: 10, outputTokens: 2 } }
      ])
    }))

  it.effect("a summary that comes only with the done item is not lost; arguments that come only with the done item are used", () =>
    Effect.gen(function* () {
      const { out } = yield* feed([
        { type: "response.output_item.added", output_index: 0, item: { type: "reasoning", id: "rs_1", summary: [] } },
        {
          type: "response.output_item.done",
          output_index: 0,
          item: { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "One." }, { type: "summary_text", text: "Two." }], encrypted_content: "enc" }
        },
        { type: "response.output_item.added", output_index: 1, item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "grep", arguments: "" } },
        { type: "response.output_item.done", output_index: 1, item: { type: "function_call", id: "fc_1", call_id: "call_1", name: "grep", arguments: "{\"pattern\":\"x\"}" } },
        completed
      ])
      expect(out).toEqual([
        { _tag: "ThinkingDelta", text: "One.\n\nTwo." },
        { _tag: "ThinkingDelta", text: "", encryptedReasoning: "enc" },
        { _tag: "ToolCall", toolCallId: "call_1", name: "grep", input: { pattern: "x" } },
        { _tag: "Completed", stopReason: "tool_calls", usage: { inputTokens: 10, outputTokens: 2 } }
      ])
    }))

  it.effect("function call arguments that are not JSON are invalid_response, naming the call", () =>
    Effect.gen(function* () {
      const { failure } = yield* feed([
        { type: "response.output_item.added", output_index: 0, item: { type: "function_call", call_id: "call_bad", name: "grep", arguments: "" } },
        { type: "response.function_call_arguments.delta", output_index: 0, delta: "{\"pattern\":" },
        { type: "response.output_item.done", output_index: 0, item: { type: "function_call", call_id: "call_bad", name: "grep" } }
      ])
      expect(failure?.error.code).toBe("invalid_response")
      expect(failure?.error.message).toContain("call_bad")
      expect(failure?.retryable).toBe(false)
    }))

  it.effect("an error event for a rate limit is rate_limited and retryable; response.failed with server_error is retryable", () =>
    Effect.gen(function* () {
      const limited = yield* feed([{ type: "error", code: "rate_limit_exceeded", message: "Rate limit reached" }])
      expect(limited.failure?.error.code).toBe("rate_limited")
      expect(limited.failure?.retryable).toBe(true)
      expect(limited.finished).toBe(true)
      const failed = yield* feed([{ type: "response.failed", response: { status: "failed", error: { code: "server_error", message: "boom" } } }])
      expect(failed.failure?.error.code).toBe("provider_error")
      expect(failed.failure?.retryable).toBe(true)
      const refused = yield* feed([{ type: "response.failed", response: { status: "failed", error: { code: "invalid_prompt", message: "Invalid prompt" } } }])
      expect(refused.failure?.retryable).toBe(false)
    }))

  it.effect("incomplete for content_filter stops with refusal; a body that ends before a terminal event is a retryable network failure", () =>
    Effect.gen(function* () {
      const filtered = yield* feed([{ type: "response.incomplete", response: { status: "incomplete", incomplete_details: { reason: "content_filter" } } }])
      expect(filtered.out).toEqual([{ _tag: "Completed", stopReason: "refusal", usage: { inputTokens: 0, outputTokens: 0 } }])
      const cut = yield* feed([{ type: "response.output_text.delta", output_index: 0, delta: "Hal" }])
      expect(cut.out).toEqual([{ _tag: "TextDelta", text: "Hal" }])
      expect(cut.failure?.error.code).toBe("network")
      expect(cut.finished).toBe(false)
    }))

  it.effect("data without a type is not a Responses API event", () =>
    Effect.gen(function* () {
      const { failure } = yield* feed([{ delta: "x" }])
      expect(failure?.error.code).toBe("invalid_response")
    }))
})
