import { Effect, ParseResult, Schema } from "effect"
import { readFile } from "node:fs/promises"

/**
 * The replay server's fixture format. A fixture serves one wire format and holds one
 * response per request, in order:
 * - `{ kind: "stream", events: [{ event?, data }...], then?: "end" | "drop" | "hang", delayMs? }`:
 *   server-sent events written as `event: <event>` and `data: <data>` lines (`data` as JSON,
 *   or verbatim when it is a string, like `[DONE]`). `then` says what follows the events:
 *   the response ends (default), the connection is destroyed (a stream broken mid-way), or
 *   the server waits until the client goes away (for cancel tests).
 * - `{ kind: "error", status, body, headers? }`: an HTTP error with a JSON body.
 * - `{ kind: "json", body, headers? }`: a 200 answer with a JSON body (a server that does not stream).
 * Either kind may say `requireToolResult: true`: the request must carry a tool result for
 * every tool call the previous response made, or the server answers 400 instead.
 * A `chain` appends generated responses: `steps` tool calls of `tool` in a row (each one
 * served only once the previous call's result came back), then `finalText`.
 */
/** `openai` is Chat Completions; `openai-responses` the Responses API (`POST /v1/responses`). */
export const WireFormat = Schema.Literal("anthropic", "openai", "openai-responses")
export type WireFormat = typeof WireFormat.Type

export const SseEvent = Schema.Struct({
  event: Schema.optional(Schema.String),
  data: Schema.Unknown
})
export type SseEvent = typeof SseEvent.Type

export const StreamResponse = Schema.Struct({
  kind: Schema.Literal("stream"),
  events: Schema.Array(SseEvent),
  then: Schema.optionalWith(Schema.Literal("end", "drop", "hang"), { default: () => "end" as const }),
  /** Milliseconds to wait before each event. */
  delayMs: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 }),
  requireToolResult: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type StreamResponse = typeof StreamResponse.Type

export const ErrorResponse = Schema.Struct({
  kind: Schema.Literal("error"),
  status: Schema.Int.pipe(Schema.between(400, 599)),
  body: Schema.Unknown,
  headers: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
  requireToolResult: Schema.optionalWith(Schema.Boolean, { default: () => false })
})
export type ErrorResponse = typeof ErrorResponse.Type

export const JsonResponse = Schema.Struct({
  kind: Schema.Literal("json"),
  body: Schema.Unknown,
  headers: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
  requireToolResult: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

export const ReplayResponse = Schema.Union(StreamResponse, ErrorResponse, JsonResponse)
export type ReplayResponse = typeof ReplayResponse.Type

export const Chain = Schema.Struct({
  steps: Schema.NonNegativeInt,
  tool: Schema.String,
  /** The input of every call, unless `inputs` gives one per step. */
  input: Schema.optionalWith(Schema.Unknown, { default: () => ({}) }),
  inputs: Schema.optional(Schema.Array(Schema.Unknown)),
  finalText: Schema.String,
  delayMs: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 })
})
export type Chain = typeof Chain.Type

export const Fixture = Schema.Struct({
  format: WireFormat,
  responses: Schema.optionalWith(Schema.Array(ReplayResponse), { default: () => [] }),
  chain: Schema.optional(Chain)
})
export type Fixture = typeof Fixture.Type
export type FixtureInput = typeof Fixture.Encoded

export class FixtureError extends Schema.TaggedError<FixtureError>()("FixtureError", {
  source: Schema.String,
  message: Schema.String
}) {}

const decodeFixture = Schema.decodeUnknown(Fixture)

export const parseFixture = (value: unknown, source: string): Effect.Effect<Fixture, FixtureError> =>
  decodeFixture(value).pipe(
    Effect.mapError((error) => new FixtureError({ source, message: ParseResult.TreeFormatter.formatErrorSync(error) }))
  )

export const loadFixture = (path: string): Effect.Effect<Fixture, FixtureError> =>
  Effect.tryPromise({
    try: async (): Promise<unknown> => JSON.parse(await readFile(path, "utf8")),
    catch: (error) => new FixtureError({ source: path, message: error instanceof Error ? error.message : String(error) })
  }).pipe(Effect.flatMap((value) => parseFixture(value, path)))

/** Splits a JSON text into `parts` fragments, the way providers stream tool input. */
const fragments = (json: string, parts: number): Array<string> => {
  const size = Math.max(1, Math.ceil(json.length / parts))
  const out: Array<string> = []
  for (let i = 0; i < json.length; i += size) out.push(json.slice(i, i + size))
  return out.length === 0 ? [""] : out
}

const anthropicToolCall = (id: string, tool: string, input: unknown, step: number): ReadonlyArray<SseEvent> => [
  {
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id: `msg_chain_${step}`, type: "message", role: "assistant", model: "replay", content: [],
        stop_reason: null, stop_sequence: null, usage: { input_tokens: 100 + step, output_tokens: 1 }
      }
    }
  },
  { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "tool_use", id, name: tool, input: {} } } },
  ...fragments(JSON.stringify(input), 3).map((partial_json) => ({
    event: "content_block_delta",
    data: { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json } }
  })),
  { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
  { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 20 } } },
  { event: "message_stop", data: { type: "message_stop" } }
]

const anthropicText = (text: string, step: number): ReadonlyArray<SseEvent> => [
  {
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id: `msg_chain_${step}`, type: "message", role: "assistant", model: "replay", content: [],
        stop_reason: null, stop_sequence: null, usage: { input_tokens: 100 + step, output_tokens: 1 }
      }
    }
  },
  { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
  { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } },
  { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
  { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 10 } } },
  { event: "message_stop", data: { type: "message_stop" } }
]

const openaiChunk = (step: number, delta: unknown, finish: string | null) => ({
  data: {
    id: `chatcmpl-chain-${step}`, object: "chat.completion.chunk", created: 0, model: "replay",
    choices: [{ index: 0, delta, finish_reason: finish }]
  }
})

const openaiUsage = (step: number) => ({
  data: {
    id: `chatcmpl-chain-${step}`, object: "chat.completion.chunk", created: 0, model: "replay", choices: [],
    usage: { prompt_tokens: 100 + step, completion_tokens: 20, total_tokens: 120 + step }
  }
})

const openaiToolCall = (id: string, tool: string, input: unknown, step: number): ReadonlyArray<SseEvent> => [
  openaiChunk(step, { role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name: tool, arguments: "" } }] }, null),
  ...fragments(JSON.stringify(input), 3).map((args) => openaiChunk(step, { tool_calls: [{ index: 0, function: { arguments: args } }] }, null)),
  openaiChunk(step, {}, "tool_calls"),
  openaiUsage(step),
  { data: "[DONE]" }
]

const openaiText = (text: string, step: number): ReadonlyArray<SseEvent> => [
  openaiChunk(step, { role: "assistant", content: text }, null),
  openaiChunk(step, {}, "stop"),
  openaiUsage(step),
  { data: "[DONE]" }
]

// The Responses API's streaming events (OpenAI API reference, Responses "Streaming events"), the fields the adapter reads.
const responsesUsage = (step: number) => ({
  input_tokens: 100 + step, input_tokens_details: { cached_tokens: 0 },
  output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 + step
})

const responsesToolCall = (id: string, tool: string, input: unknown, step: number): ReadonlyArray<SseEvent> => {
  const args = JSON.stringify(input)
  const item = { type: "function_call", id: `fc_chain_${step}`, call_id: id, name: tool, status: "in_progress" }
  return [
    { event: "response.output_item.added", data: { type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "" } } },
    ...fragments(args, 3).map((delta) => ({
      event: "response.function_call_arguments.delta",
      data: { type: "response.function_call_arguments.delta", item_id: item.id, output_index: 0, delta }
    })),
    { event: "response.output_item.done", data: { type: "response.output_item.done", output_index: 0, item: { ...item, arguments: args, status: "completed" } } },
    { event: "response.completed", data: { type: "response.completed", response: { id: `resp_chain_${step}`, status: "completed", usage: responsesUsage(step) } } }
  ]
}

const responsesText = (text: string, step: number): ReadonlyArray<SseEvent> => [
  { event: "response.output_text.delta", data: { type: "response.output_text.delta", item_id: `msg_chain_${step}`, output_index: 0, content_index: 0, delta: text } },
  { event: "response.completed", data: { type: "response.completed", response: { id: `resp_chain_${step}`, status: "completed", usage: responsesUsage(step) } } }
]

const toolCallEvents = (format: WireFormat) =>
  format === "anthropic" ? anthropicToolCall : format === "openai" ? openaiToolCall : responsesToolCall

const textEvents = (format: WireFormat) => format === "anthropic" ? anthropicText : format === "openai" ? openaiText : responsesText

/** The responses a chain stands for; tool call ids are `call_chain_<step>`. */
export const expandChain = (format: WireFormat, chain: Chain): Array<ReplayResponse> => {
  const responses: Array<ReplayResponse> = []
  for (let step = 1; step <= chain.steps; step++) {
    const input = chain.inputs?.[step - 1] ?? chain.input
    const id = `call_chain_${step}`
    responses.push({
      kind: "stream",
      events: toolCallEvents(format)(id, chain.tool, input, step),
      then: "end",
      delayMs: chain.delayMs,
      requireToolResult: step > 1
    })
  }
  const last = chain.steps + 1
  responses.push({
    kind: "stream",
    events: textEvents(format)(chain.finalText, last),
    then: "end",
    delayMs: chain.delayMs,
    requireToolResult: chain.steps > 0
  })
  return responses
}

/** Every response the fixture serves, the chain's after the listed ones. */
export const fixtureResponses = (fixture: Fixture): Array<ReplayResponse> => [
  ...fixture.responses,
  ...(fixture.chain === undefined ? [] : expandChain(fixture.format, fixture.chain))
]
