import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { ModelStopReason, ModelStreamEvent, Usage } from "../../domain/model.js"
import { classifyProblem, invalidResponse, type ProviderLabel, truncatedStream } from "./provider-errors.js"
import type { AttemptFailure } from "./retry.js"
import type { SseEvent } from "./sse.js"
import { messageOf } from "../../domain/cause-message.js"

export const openaiLabel: ProviderLabel = { name: "the OpenAI-compatible server", keyVariable: "OPENAI_API_KEY" }

// Servers differ in what they leave out or send as null, so every field is optional and nullable.
const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))

const ToolCallDelta = Schema.Struct({
  index: optionalNullable(Schema.Number),
  id: optionalNullable(Schema.String),
  function: optionalNullable(Schema.Struct({
    name: optionalNullable(Schema.String),
    arguments: optionalNullable(Schema.String)
  }))
})

const Delta = Schema.Struct({
  content: optionalNullable(Schema.String),
  reasoning_content: optionalNullable(Schema.String),
  reasoning: optionalNullable(Schema.String),
  tool_calls: optionalNullable(Schema.Array(ToolCallDelta))
})

const ChunkUsage = Schema.Struct({
  prompt_tokens: optionalNullable(Schema.Number),
  completion_tokens: optionalNullable(Schema.Number),
  prompt_tokens_details: optionalNullable(Schema.Struct({ cached_tokens: optionalNullable(Schema.Number) })),
  /** The request's cost in USD, from gateways that report it (OpenRouter). */
  cost: optionalNullable(Schema.Number)
})

const StreamError = Schema.Struct({
  message: optionalNullable(Schema.String),
  type: optionalNullable(Schema.String),
  code: optionalNullable(Schema.Union(Schema.String, Schema.Number))
})

const Chunk = Schema.Struct({
  choices: optionalNullable(Schema.Array(Schema.Struct({
    delta: optionalNullable(Delta),
    finish_reason: optionalNullable(Schema.String)
  }))),
  usage: optionalNullable(ChunkUsage),
  error: optionalNullable(Schema.Union(StreamError, Schema.String))
})
type Chunk = typeof Chunk.Type

const decodeChunk = Schema.decodeUnknownEither(Schema.parseJson(Chunk))

interface ToolCallState {
  id: string | undefined
  name: string
  readonly fragments: Array<string>
}

const finishReasons: Readonly<Record<string, ModelStopReason>> = {
  stop: "final",
  tool_calls: "tool_calls",
  function_call: "tool_calls",
  length: "max_tokens",
  content_filter: "refusal"
}

/**
 * Turns Chat Completions chunks into normalized events: content and reasoning deltas
 * (`reasoning_content`, or `reasoning` as some local servers name it) pass through, tool
 * call deltas are assembled by index (id and name first, arguments in fragments) and
 * emitted once the choice finishes, and `[DONE]` (or the end of the body after a finish
 * reason) yields Completed with the usage of the final chunk.
 */
export const makeOpenAIAssembler = (newId: () => string) => {
  const calls = new Map<number, ToolCallState>()
  let finishReason: string | undefined
  let toolCallsEmitted = 0
  let usage: Usage = { inputTokens: 0, outputTokens: 0 }
  let reportedCost: number | undefined
  let done = false

  const toolCallEvents = (): Either.Either<Array<ModelStreamEvent>, AttemptFailure> => {
    const out: Array<ModelStreamEvent> = []
    for (const index of [...calls.keys()].sort((a, b) => a - b)) {
      const call = calls.get(index)
      if (call === undefined) continue
      const json = call.fragments.join("")
      const id = call.id ?? newId()
      let input: unknown = {}
      if (json.trim() !== "") {
        try {
          input = JSON.parse(json)
        } catch (error) {
          const reason = messageOf(error)
          return Either.left(invalidResponse(openaiLabel, `the arguments of tool call ${id} (${call.name}) are not valid JSON: ${reason}`))
        }
      }
      out.push({ _tag: "ToolCall", toolCallId: id, name: call.name, input })
    }
    toolCallsEmitted += out.length
    calls.clear()
    return Either.right(out)
  }

  const streamError = (error: NonNullable<Chunk["error"]>): AttemptFailure => {
    if (typeof error === "string") return classifyProblem(openaiLabel, { errorType: "api_error", detail: error })
    const detail = error.message ?? "error in the stream"
    const type = typeof error.code === "string" ? error.code : (error.type ?? undefined)
    const hint = /overload/i.test(detail) ? "overloaded_error" : /rate limit/i.test(detail) ? "rate_limit_error" : undefined
    return classifyProblem(openaiLabel, { errorType: hint ?? type ?? "api_error", detail })
  }

  const onChunk = (chunk: Chunk): Effect.Effect<ReadonlyArray<ModelStreamEvent>, AttemptFailure> => {
    if (chunk.error !== undefined && chunk.error !== null) return Effect.fail(streamError(chunk.error))
    const out: Array<ModelStreamEvent> = []
    if (chunk.usage !== undefined && chunk.usage !== null) {
      const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? undefined
      const prompt = chunk.usage.prompt_tokens ?? 0
      // Chat Completions counts cached tokens inside prompt_tokens; the domain keeps them apart, as Anthropic does.
      usage = {
        inputTokens: prompt - (cached ?? 0),
        outputTokens: chunk.usage.completion_tokens ?? 0,
        ...(cached === undefined ? {} : { cacheReadTokens: cached })
      }
      if (typeof chunk.usage.cost === "number" && Number.isFinite(chunk.usage.cost) && chunk.usage.cost >= 0) reportedCost = chunk.usage.cost
    }
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta
      const reasoning = delta?.reasoning_content ?? delta?.reasoning
      if (reasoning !== undefined && reasoning !== null && reasoning !== "") out.push({ _tag: "ThinkingDelta", text: reasoning })
      if (delta?.content !== undefined && delta.content !== null && delta.content !== "") {
        out.push({ _tag: "TextDelta", text: delta.content })
      }
      for (const [position, call] of (delta?.tool_calls ?? []).entries()) {
        const index = call.index ?? position
        const state = calls.get(index) ?? { id: undefined, name: "", fragments: [] }
        calls.set(index, state)
        if (call.id !== undefined && call.id !== null && call.id !== "") state.id = call.id
        if (call.function?.name !== undefined && call.function.name !== null && call.function.name !== "") {
          state.name = call.function.name
        }
        const fragment = call.function?.arguments
        if (fragment !== undefined && fragment !== null) state.fragments.push(fragment)
      }
      if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
        finishReason = choice.finish_reason
        const assembled = toolCallEvents()
        if (Either.isLeft(assembled)) return Effect.fail(assembled.left)
        out.push(...assembled.right)
      }
    }
    return Effect.succeed(out)
  }

  const stopReason = (): ModelStopReason => {
    // Some servers (Ollama among them) say `stop` when the answer is tool calls.
    if (toolCallsEmitted > 0 && (finishReason === "stop" || finishReason === "tool_calls" || finishReason === "function_call")) {
      return "tool_calls"
    }
    return finishReason !== undefined && Object.hasOwn(finishReasons, finishReason) ? (finishReasons[finishReason] ?? "final") : "final"
  }

  const completed = (): Effect.Effect<ReadonlyArray<ModelStreamEvent>, AttemptFailure> => {
    done = true
    if (finishReason === undefined) return Effect.fail(invalidResponse(openaiLabel, "the stream ended without a finish_reason"))
    return Effect.succeed([{ _tag: "Completed", stopReason: stopReason(), usage, ...(reportedCost === undefined ? {} : { costUsd: reportedCost }) }])
  }

  const onEvent = (event: SseEvent): Effect.Effect<ReadonlyArray<ModelStreamEvent>, AttemptFailure> => {
    if (done) return Effect.succeed([])
    if (event.data.trim() === "[DONE]") return completed()
    const decoded = decodeChunk(event.data)
    if (Either.isLeft(decoded)) return Effect.fail(invalidResponse(openaiLabel, `a chunk is not a chat completion chunk: ${event.data.slice(0, 200)}`))
    return onChunk(decoded.right)
  }

  /** The body ended: fine after [DONE], or after a finish reason from a server that omits [DONE]. */
  const end: Effect.Effect<ReadonlyArray<ModelStreamEvent>, AttemptFailure> = Effect.suspend(() => {
    if (done) return Effect.succeed([])
    if (finishReason !== undefined) return completed()
    return Effect.fail(truncatedStream(openaiLabel))
  })

  return { onEvent, end }
}
