/**
 * The Messages stream's events as the adapter reads them: only the fields it uses, each
 * checked when the event is read (the stream is a trust boundary). Event and block types
 * this agent does not use read as `other` and are skipped, as new ones may appear.
 */

/** The usage fields of `message_start` and `message_delta`; the delta's may be null. */
export type UsageUpdate = {
  readonly [K in "input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens"]?: number | null
}

export type StreamBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string }
  | { readonly type: "redacted_thinking"; readonly data: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown }
  | { readonly type: "other" }

export type StreamDelta =
  | { readonly type: "text_delta"; readonly text: string }
  | { readonly type: "thinking_delta"; readonly thinking: string }
  | { readonly type: "signature_delta"; readonly signature: string }
  | { readonly type: "input_json_delta"; readonly partialJson: string }
  | { readonly type: "other" }

export type StreamEvent =
  | { readonly type: "message_start"; readonly usage: UsageUpdate }
  | { readonly type: "content_block_start"; readonly index: number; readonly block: StreamBlock }
  | { readonly type: "content_block_delta"; readonly index: number; readonly delta: StreamDelta }
  | { readonly type: "content_block_stop"; readonly index: number }
  | { readonly type: "message_delta"; readonly usage: UsageUpdate; readonly stopReason: string | null }
  | { readonly type: "message_stop" }
  | { readonly type: "other" }

type Fields = Readonly<Record<string, unknown>>

/** A field that is not what it should be: names the event and the field for the error. */
class Malformed {
  constructor(readonly field: string) {}
}

const isRecord = (value: unknown): value is Fields => typeof value === "object" && value !== null && !Array.isArray(value)

const record = (value: unknown, field: string): Fields => {
  if (!isRecord(value)) throw new Malformed(field)
  return value
}

const string = (fields: Fields, field: string): string => {
  const value = fields[field]
  if (typeof value !== "string") throw new Malformed(field)
  return value
}

const index = (fields: Fields): number => {
  const value = fields["index"]
  if (typeof value !== "number" || !Number.isInteger(value)) throw new Malformed("index")
  return value
}

const usageKeys = ["input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"] as const

/** Counts that are absent or null count as not given; anything else must be a number. */
const usage = (value: unknown, field: string): UsageUpdate => {
  if (value === undefined || value === null) return {}
  const fields = record(value, field)
  const out: { -readonly [K in keyof UsageUpdate]: UsageUpdate[K] } = {}
  for (const key of usageKeys) {
    const count = fields[key]
    if (typeof count === "number") out[key] = count
    else if (count !== undefined && count !== null) throw new Malformed(`${field}.${key}`)
  }
  return out
}

const block = (value: unknown): StreamBlock => {
  const fields = record(value, "content_block")
  switch (fields["type"]) {
    case "text":
      return { type: "text", text: string(fields, "text") }
    case "thinking":
      return { type: "thinking", thinking: string(fields, "thinking") }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: string(fields, "data") }
    case "tool_use":
      return { type: "tool_use", id: string(fields, "id"), name: string(fields, "name"), input: fields["input"] }
    default:
      return { type: "other" }
  }
}

const delta = (value: unknown): StreamDelta => {
  const fields = record(value, "delta")
  switch (fields["type"]) {
    case "text_delta":
      return { type: "text_delta", text: string(fields, "text") }
    case "thinking_delta":
      return { type: "thinking_delta", thinking: string(fields, "thinking") }
    case "signature_delta":
      return { type: "signature_delta", signature: string(fields, "signature") }
    case "input_json_delta":
      return { type: "input_json_delta", partialJson: string(fields, "partial_json") }
    default:
      return { type: "other" }
  }
}

const stopReason = (fields: Fields): string | null => {
  const value = fields["stop_reason"]
  if (value === undefined || value === null) return null
  if (typeof value !== "string") throw new Malformed("delta.stop_reason")
  return value
}

const read = (fields: Fields): StreamEvent => {
  switch (fields["type"]) {
    case "message_start":
      return { type: "message_start", usage: usage(record(fields["message"], "message")["usage"], "message.usage") }
    case "content_block_start":
      return { type: "content_block_start", index: index(fields), block: block(fields["content_block"]) }
    case "content_block_delta":
      return { type: "content_block_delta", index: index(fields), delta: delta(fields["delta"]) }
    case "content_block_stop":
      return { type: "content_block_stop", index: index(fields) }
    case "message_delta":
      return { type: "message_delta", usage: usage(fields["usage"], "usage"), stopReason: stopReason(record(fields["delta"], "delta")) }
    case "message_stop":
      return { type: "message_stop" }
    default:
      return { type: "other" }
  }
}

/** One event's parsed JSON as a StreamEvent, or what is wrong with it. */
export const readStreamEvent = (json: unknown): { readonly ok: true; readonly event: StreamEvent } | { readonly ok: false; readonly problem: string } => {
  if (!isRecord(json)) return { ok: false, problem: "a stream event is not a JSON object" }
  try {
    return { ok: true, event: read(json) }
  } catch (error) {
    if (error instanceof Malformed) return { ok: false, problem: `a ${String(json["type"])} event has no valid ${error.field}` }
    throw error
  }
}
