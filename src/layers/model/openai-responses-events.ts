import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { messageOf } from "../../domain/cause-message.js"
import type { ModelStopReason, ModelStreamEvent, Usage } from "../../domain/model.js"
import { classifyProblem, invalidResponse, type ProviderLabel, truncatedStream } from "./provider-errors.js"
import type { AttemptFailure } from "./retry.js"
import type { SseEvent } from "./sse.js"

export const responsesLabel: ProviderLabel = { name: "OpenAI", keyVariable: "OPENAI_API_KEY" }

const optionalNullable = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(Schema.NullOr(schema))

// The fields of the Responses API's streaming events this adapter reads (OpenAI API reference,
// "Streaming events" of the Responses API); every event carries `type`, the rest depends on it.
const Item = Schema.Struct({
  type: Schema.String,
  id: optionalNullable(Schema.String),
  call_id: optionalNullable(Schema.String),
  name: optionalNullable(Schema.String),
  arguments: optionalNullable(Schema.String),
  encrypted_content: optionalNullable(Schema.String),
  summary: optionalNullable(Schema.Array(Schema.Struct({ text: optionalNullable(Schema.String) })))
})
type Item = typeof Item.Type

const ProblemFields = {
  code: optionalNullable(Schema.Union(Schema.String, Schema.Number)),
  message: optionalNullable(Schema.String)
}

const ResponseUsage = Schema.Struct({
  input_tokens: optionalNullable(Schema.Number),
  output_tokens: optionalNullable(Schema.Number),
  input_tokens_details: optionalNullable(Schema.Struct({ cached_tokens: optionalNullable(Schema.Number) })),
  output_tokens_details: optionalNullable(Schema.Struct({ reasoning_tokens: optionalNullable(Schema.Number) }))
})

const StreamEvent = Schema.Struct({
  type: Schema.String,
  delta: optionalNullable(Schema.String),
  arguments: optionalNullable(Schema.String),
  output_index: optionalNullable(Schema.Number),
  summary_index: optionalNullable(Schema.Number),
  item: optionalNullable(Item),
  response: optionalNullable(Schema.Struct({
    status: optionalNullable(Schema.String),
    usage: optionalNullable(ResponseUsage),
    incomplete_details: optionalNullable(Schema.Struct({ reason: optionalNullable(Schema.String) })),
    error: optionalNullable(Schema.Struct(ProblemFields))
  })),
  ...ProblemFields
})
type StreamEvent = typeof StreamEvent.Type

const decodeEvent = Schema.decodeUnknownEither(Schema.parseJson(StreamEvent))

interface CallState {
  readonly callId: string
  readonly name: string
  arguments: string
}

interface ReasoningState {
  streamed: boolean
  summaryIndex: number | undefined
}

/** Error codes of `response.failed` and `error` events, as the classifier knows them. */
const problemTypes: Readonly<Record<string, string>> = {
  rate_limit_exceeded: "rate_limit_error",
  server_error: "server_error",
  server_is_overloaded: "overloaded_error",
  slow_down: "rate_limit_error"
}

const usageOf = (usage: typeof ResponseUsage.Type): Usage => {
  const cached = usage.input_tokens_details?.cached_tokens ?? undefined
  const reasoning = usage.output_tokens_details?.reasoning_tokens ?? undefined
  // input_tokens counts the cached ones; the domain keeps them apart, as Anthropic does.
  return {
    inputTokens: (usage.input_tokens ?? 0) - (cached ?? 0),
    outputTokens: usage.output_tokens ?? 0,
    ...(cached === undefined ? {} : { cacheReadTokens: cached }),
    ...(reasoning === undefined ? {} : { reasoningTokens: reasoning })
  }
}

/**
 * Turns the Responses API's semantic events into normalized events: text and reasoning
 * summary deltas pass through (summary parts of one item separated by a blank line); a
 * function call is emitted whole when its item is done; a reasoning item's done ends it with
 * its encrypted content (an empty ThinkingDelta carrying it, as Anthropic's signature comes);
 * `response.completed` or `response.incomplete` yields Completed, and `response.failed` or
 * `error` a classified failure. There is no `[DONE]`: the terminal event ends the answer.
 */
export const makeResponsesAssembler = () => {
  const calls = new Map<number, CallState>()
  const reasoning = new Map<number, ReasoningState>()
  let toolCalls = 0
  let refused = false
  let done = false

  const problem = (code: string | number | null | undefined, message: string | null | undefined): AttemptFailure => {
    const detail = message ?? "the response failed"
    const named = typeof code === "string" ? code : undefined
    const errorType = (named !== undefined && Object.hasOwn(problemTypes, named) ? problemTypes[named] : named) ??
      (/overload/i.test(detail) ? "overloaded_error" : /rate limit/i.test(detail) ? "rate_limit_error" : "api_error")
    return classifyProblem(responsesLabel, { errorType, detail })
  }

  const itemDone = (index: number, item: Item): Either.Either<Array<ModelStreamEvent>, AttemptFailure> => {
    if (item.type === "function_call") {
      const state = calls.get(index)
      calls.delete(index)
      const callId = item.call_id ?? state?.callId
      const name = item.name ?? state?.name
      if (callId === undefined || callId === "" || name === undefined || name === "") {
        return Either.left(invalidResponse(responsesLabel, `a function call item has no call_id or name`))
      }
      const json = item.arguments ?? state?.arguments ?? ""
      let input: unknown = {}
      if (json.trim() !== "") {
        try {
          input = JSON.parse(json)
        } catch (error) {
          return Either.left(invalidResponse(responsesLabel, `the arguments of function call ${callId} (${name}) are not valid JSON: ${messageOf(error)}`))
        }
      }
      toolCalls++
      return Either.right([{ _tag: "ToolCall", toolCallId: callId, name, input }])
    }
    if (item.type === "reasoning") {
      const state = reasoning.get(index)
      reasoning.delete(index)
      const out: Array<ModelStreamEvent> = []
      // A summary that came only with the done item (no deltas) is not lost.
      const summary = (item.summary ?? []).map((part) => part.text ?? "").filter((text) => text !== "").join("\n\n")
      if (state?.streamed !== true && summary !== "") out.push({ _tag: "ThinkingDelta", text: summary })
      const encrypted = item.encrypted_content
      if (encrypted !== undefined && encrypted !== null && encrypted !== "") out.push({ _tag: "ThinkingDelta", text: "", encryptedReasoning: encrypted })
      return Either.right(out)
    }
    return Either.right([])
  }

  const completed = (response: NonNullable<StreamEvent["response"]>, incomplete: boolean): ReadonlyArray<ModelStreamEvent> => {
    done = true
    const reason = response.incomplete_details?.reason
    const stopReason: ModelStopReason = incomplete
      ? (reason === "content_filter" ? "refusal" : "max_tokens")
      : toolCalls > 0 ? "tool_calls" : refused ? "refusal" : "final"
    const usage = response.usage === undefined || response.usage === null ? { inputTokens: 0, outputTokens: 0 } : usageOf(response.usage)
    return [{ _tag: "Completed", stopReason, usage }]
  }

  const onStreamEvent = (event: StreamEvent): Effect.Effect<ReadonlyArray<ModelStreamEvent>, AttemptFailure> => {
    const index = event.output_index ?? 0
    switch (event.type) {
      case "response.output_text.delta":
      case "response.refusal.delta": {
        if (event.type === "response.refusal.delta") refused = true
        const text = event.delta ?? ""
        return Effect.succeed(text === "" ? [] : [{ _tag: "TextDelta", text }])
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const state = reasoning.get(index) ?? { streamed: false, summaryIndex: undefined }
        reasoning.set(index, state)
        const text = event.delta ?? ""
        if (text === "") return Effect.succeed([])
        const part = event.summary_index ?? 0
        const separator = state.streamed && state.summaryIndex !== part ? "\n\n" : ""
        state.streamed = true
        state.summaryIndex = part
        return Effect.succeed([{ _tag: "ThinkingDelta", text: separator + text }])
      }
      case "response.output_item.added": {
        const item = event.item
        if (item?.type === "function_call") {
          calls.set(index, { callId: item.call_id ?? "", name: item.name ?? "", arguments: item.arguments ?? "" })
        }
        if (item?.type === "reasoning") reasoning.set(index, { streamed: false, summaryIndex: undefined })
        return Effect.succeed([])
      }
      case "response.function_call_arguments.delta": {
        const call = calls.get(index)
        if (call !== undefined) call.arguments += event.delta ?? ""
        return Effect.succeed([])
      }
      case "response.function_call_arguments.done": {
        const call = calls.get(index)
        if (call !== undefined && event.arguments !== undefined && event.arguments !== null) call.arguments = event.arguments
        return Effect.succeed([])
      }
      case "response.output_item.done":
        return event.item === undefined || event.item === null ? Effect.succeed([]) : Either.match(itemDone(index, event.item), {
          onLeft: Effect.fail,
          onRight: Effect.succeed
        })
      case "response.completed":
      case "response.incomplete":
        if (event.response === undefined || event.response === null) {
          return Effect.fail(invalidResponse(responsesLabel, `${event.type} carries no response`))
        }
        return Effect.succeed(completed(event.response, event.type === "response.incomplete"))
      case "response.failed": {
        done = true
        const error = event.response?.error
        return Effect.fail(problem(error?.code, error?.message))
      }
      case "error":
        done = true
        return Effect.fail(problem(event.code, event.message))
      default:
        // Lifecycle events (created, in_progress, content parts, ...) carry nothing new.
        return Effect.succeed([])
    }
  }

  const onEvent = (event: SseEvent): Effect.Effect<ReadonlyArray<ModelStreamEvent>, AttemptFailure> => {
    if (done) return Effect.succeed([])
    const decoded = decodeEvent(event.data)
    if (Either.isLeft(decoded)) return Effect.fail(invalidResponse(responsesLabel, `an event is not a Responses API event: ${event.data.slice(0, 200)}`))
    return onStreamEvent(decoded.right)
  }

  /** The body ended: fine after a terminal event, else the answer was cut off. */
  const end: Effect.Effect<ReadonlyArray<ModelStreamEvent>, AttemptFailure> = Effect.suspend(() =>
    done ? Effect.succeed([]) : Effect.fail(truncatedStream(responsesLabel))
  )

  return { onEvent, end, finished: () => done }
}
