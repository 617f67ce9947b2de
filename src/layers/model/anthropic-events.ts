import type { StopReason } from "@anthropic-ai/sdk/resources/messages"
import * as Either from "effect/Either"
import type { ModelStopReason, ModelStreamEvent, Usage } from "../../domain/model.js"
import type { StreamEvent, UsageUpdate } from "./anthropic-stream-events.js"
import { invalidResponse, type ProviderLabel, truncatedStream } from "./provider-errors.js"
import type { AttemptFailure } from "./retry.js"
import { messageOf } from "../../domain/cause-message.js"

export const anthropicLabel: ProviderLabel = { name: "Anthropic", keyVariable: "ANTHROPIC_API_KEY" }

const stopReasons: Readonly<Record<StopReason, ModelStopReason>> = {
  end_turn: "final",
  tool_use: "tool_calls",
  max_tokens: "max_tokens",
  stop_sequence: "stop_sequence",
  pause_turn: "pause",
  refusal: "refusal",
  // The model filled the context window while writing: like max_tokens, the answer is cut.
  model_context_window_exceeded: "max_tokens"
}

const isStopReason = (value: string): value is StopReason => Object.hasOwn(stopReasons, value)

interface ToolBlock {
  readonly id: string
  readonly name: string
  readonly initialInput: unknown
  readonly fragments: Array<string>
}

const parseToolInput = (block: ToolBlock): { readonly ok: true; readonly input: unknown } | { readonly ok: false; readonly error: string } => {
  const json = block.fragments.join("")
  if (json.trim() === "") return { ok: true, input: block.initialInput ?? {} }
  try {
    return { ok: true, input: JSON.parse(json) }
  } catch (error) {
    return { ok: false, error: messageOf(error) }
  }
}

/**
 * Turns the raw Messages stream into normalized events, one attempt at a time: text and
 * thinking deltas pass through as they come, a tool_use block becomes one ToolCall when
 * it closes (its `input_json_delta` fragments assembled and parsed), and `message_stop`
 * yields Completed with the stop reason and the usage merged from `message_start` and
 * `message_delta`.
 */
export const makeAnthropicAssembler = () => {
  const tools = new Map<number, ToolBlock>()
  const usage: { input: number; output: number; cacheRead?: number; cacheWrite?: number } = { input: 0, output: 0 }
  let stopReason: string | null = null
  let sawToolCall = false
  let completed = false

  const applyUsage = (update: UsageUpdate) => {
    if (typeof update.input_tokens === "number") usage.input = update.input_tokens
    if (typeof update.output_tokens === "number") usage.output = update.output_tokens
    if (typeof update.cache_read_input_tokens === "number") usage.cacheRead = update.cache_read_input_tokens
    if (typeof update.cache_creation_input_tokens === "number") usage.cacheWrite = update.cache_creation_input_tokens
  }

  const finalUsage = (): Usage => ({
    inputTokens: usage.input,
    outputTokens: usage.output,
    ...(usage.cacheRead === undefined ? {} : { cacheReadTokens: usage.cacheRead }),
    ...(usage.cacheWrite === undefined ? {} : { cacheWriteTokens: usage.cacheWrite })
  })

  const mappedStop = (): ModelStopReason => {
    if (stopReason !== null && isStopReason(stopReason)) return stopReasons[stopReason]
    return sawToolCall ? "tool_calls" : "final"
  }

  const onEvent = (event: StreamEvent): Either.Either<ReadonlyArray<ModelStreamEvent>, AttemptFailure> => {
    switch (event.type) {
      case "message_start":
        applyUsage(event.usage)
        return Either.right([])
      case "content_block_start": {
        const block = event.block
        switch (block.type) {
          case "text":
            return Either.right(block.text === "" ? [] : [{ _tag: "TextDelta", text: block.text }])
          case "thinking":
            return Either.right(block.thinking === "" ? [] : [{ _tag: "ThinkingDelta", text: block.thinking }])
          case "redacted_thinking":
            return Either.right([{ _tag: "ThinkingDelta", text: "", redacted: block.data }])
          case "tool_use":
            tools.set(event.index, { id: block.id, name: block.name, initialInput: block.input, fragments: [] })
            return Either.right([])
          default:
            // Server-side tools and other blocks this agent does not use.
            return Either.right([])
        }
      }
      case "content_block_delta": {
        const delta = event.delta
        switch (delta.type) {
          case "text_delta":
            return Either.right(delta.text === "" ? [] : [{ _tag: "TextDelta", text: delta.text }])
          case "thinking_delta":
            return Either.right(delta.thinking === "" ? [] : [{ _tag: "ThinkingDelta", text: delta.thinking }])
          case "signature_delta":
            return Either.right([{ _tag: "ThinkingDelta", text: "", signature: delta.signature }])
          case "input_json_delta": {
            const tool = tools.get(event.index)
            if (tool === undefined) {
              return Either.left(invalidResponse(anthropicLabel, `input_json_delta for block ${event.index}, which is not a tool_use block`))
            }
            tool.fragments.push(delta.partialJson)
            return Either.right([])
          }
          default:
            return Either.right([])
        }
      }
      case "content_block_stop": {
        const tool = tools.get(event.index)
        if (tool === undefined) return Either.right([])
        tools.delete(event.index)
        const parsed = parseToolInput(tool)
        if (!parsed.ok) {
          return Either.left(
            invalidResponse(anthropicLabel, `the input of tool call ${tool.id} (${tool.name}) is not valid JSON: ${parsed.error}`)
          )
        }
        sawToolCall = true
        return Either.right([{ _tag: "ToolCall", toolCallId: tool.id, name: tool.name, input: parsed.input }])
      }
      case "message_delta":
        applyUsage(event.usage)
        stopReason = event.stopReason ?? stopReason
        return Either.right([])
      case "message_stop":
        completed = true
        return Either.right([{ _tag: "Completed", stopReason: mappedStop(), usage: finalUsage() }])
      default:
        return Either.right([])
    }
  }

  /** At the end of the stream: nothing more if the message completed, else the stream was cut. */
  const end = (): Either.Either<ReadonlyArray<ModelStreamEvent>, AttemptFailure> =>
    completed ? Either.right([]) : Either.left(truncatedStream(anthropicLabel))

  /** Whether `message_stop` came: nothing but the body's end should follow. */
  const stopped = () => completed

  return { onEvent, end, stopped }
}

