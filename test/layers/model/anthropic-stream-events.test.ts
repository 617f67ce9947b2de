import { describe, expect, it } from "@effect/vitest"
import { readStreamEvent } from "../../../src/layers/model/anthropic-stream-events.js"

const read = (json: unknown) => readStreamEvent(json)

describe("readStreamEvent (the Messages stream's events, checked)", () => {
  it("reads the fields the adapter uses from each event type", () => {
    expect(read({ type: "message_start", message: { id: "m", usage: { input_tokens: 9, output_tokens: 1, cache_read_input_tokens: null } } })).toEqual({
      ok: true,
      event: { type: "message_start", usage: { input_tokens: 9, output_tokens: 1 } }
    })
    expect(read({ type: "content_block_start", index: 0, content_block: { type: "text", text: "Hi" } })).toEqual({
      ok: true,
      event: { type: "content_block_start", index: 0, block: { type: "text", text: "Hi" } }
    })
    expect(read({ type: "content_block_start", index: 1, content_block: { type: "tool_use", id: "toolu_1", name: "read_file", input: {} } })).toEqual({
      ok: true,
      event: { type: "content_block_start", index: 1, block: { type: "tool_use", id: "toolu_1", name: "read_file", input: {} } }
    })
    expect(read({ type: "content_block_start", index: 2, content_block: { type: "redacted_thinking", data: "xyz" } })).toMatchObject({
      event: { block: { type: "redacted_thinking", data: "xyz" } }
    })
    expect(read({ type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partial_json: "{\"pa" } })).toEqual({
      ok: true,
      event: { type: "content_block_delta", index: 1, delta: { type: "input_json_delta", partialJson: "{\"pa" } }
    })
    expect(read({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "sig" } })).toMatchObject({
      event: { delta: { type: "signature_delta", signature: "sig" } }
    })
    expect(read({ type: "content_block_stop", index: 1 })).toEqual({ ok: true, event: { type: "content_block_stop", index: 1 } })
    expect(read({ type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 12 } })).toEqual({
      ok: true,
      event: { type: "message_delta", usage: { output_tokens: 12 }, stopReason: "tool_use" }
    })
    expect(read({ type: "message_delta", delta: { stop_reason: null } })).toEqual({
      ok: true,
      event: { type: "message_delta", usage: {}, stopReason: null }
    })
    expect(read({ type: "message_stop" })).toEqual({ ok: true, event: { type: "message_stop" } })
  })

  it("reads event, block and delta types it does not use as other, whatever their fields", () => {
    expect(read({ type: "a_future_event", anything: [1, 2] })).toEqual({ ok: true, event: { type: "other" } })
    expect(read({ type: "content_block_start", index: 0, content_block: { type: "server_tool_use", id: 3 } })).toEqual({
      ok: true,
      event: { type: "content_block_start", index: 0, block: { type: "other" } }
    })
    expect(read({ type: "content_block_delta", index: 0, delta: { type: "citations_delta" } })).toEqual({
      ok: true,
      event: { type: "content_block_delta", index: 0, delta: { type: "other" } }
    })
  })

  it("names the event and the field that is missing or of the wrong type", () => {
    expect(read([1])).toEqual({ ok: false, problem: "a stream event is not a JSON object" })
    expect(read("message_stop")).toEqual({ ok: false, problem: "a stream event is not a JSON object" })
    expect(read({ type: "message_start" })).toEqual({ ok: false, problem: "a message_start event has no valid message" })
    expect(read({ type: "message_start", message: { usage: { input_tokens: "9" } } })).toEqual({
      ok: false,
      problem: "a message_start event has no valid message.usage.input_tokens"
    })
    expect(read({ type: "content_block_start", content_block: { type: "text", text: "" } })).toEqual({
      ok: false,
      problem: "a content_block_start event has no valid index"
    })
    expect(read({ type: "content_block_start", index: 0.5, content_block: { type: "text", text: "" } })).toMatchObject({ ok: false })
    expect(read({ type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1" } })).toEqual({
      ok: false,
      problem: "a content_block_start event has no valid name"
    })
    expect(read({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: 5 } })).toEqual({
      ok: false,
      problem: "a content_block_delta event has no valid text"
    })
    expect(read({ type: "content_block_delta", index: 0, delta: null })).toEqual({
      ok: false,
      problem: "a content_block_delta event has no valid delta"
    })
    expect(read({ type: "message_delta", delta: { stop_reason: 1 } })).toEqual({
      ok: false,
      problem: "a message_delta event has no valid delta.stop_reason"
    })
  })
})
