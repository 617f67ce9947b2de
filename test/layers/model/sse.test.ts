import { describe, expect, it } from "@effect/vitest"
import { makeSseDecoder, makeSseParser } from "../../../src/layers/model/sse.js"

const encode = (text: string) => new TextEncoder().encode(text)

describe("SSE parser", () => {
  it("parses events with names, multi-line data, comments and CRLF", () => {
    const parser = makeSseParser()
    const events = parser.feed(": keep-alive\r\nevent: message_start\r\ndata: {\"a\":1}\r\n\r\ndata: line one\ndata: line two\nid: 7\nretry: 10\n\n")
    expect(events).toEqual([
      { event: "message_start", data: "{\"a\":1}" },
      { event: undefined, data: "line one\nline two" }
    ])
  })

  it("keeps a line split across chunks, a CRLF split between them included", () => {
    const parser = makeSseParser()
    expect(parser.feed("data: {\"te")).toEqual([])
    expect(parser.feed("xt\":\"hi\"}\r")).toEqual([])
    expect(parser.feed("\n\r\ndata: [DONE]\n\n")).toEqual([
      { event: undefined, data: "{\"text\":\"hi\"}" },
      { event: undefined, data: "[DONE]" }
    ])
  })

  it("dispatches a last event without its blank line at the end, and ignores events without data", () => {
    const parser = makeSseParser()
    expect(parser.feed("event: ping\n\ndata: x")).toEqual([])
    expect(parser.end()).toEqual([{ event: undefined, data: "x" }])
  })

  it("takes `data:x` without the space and a field without a colon", () => {
    const parser = makeSseParser()
    expect(parser.feed("data:x\ndata\n\n")).toEqual([{ event: undefined, data: "x\n" }])
  })

  it("decodes bytes split at arbitrary points, multi-byte characters included", () => {
    const bytes = encode("data: café ☕\n\ndata: [DONE]\n\ndata: tail")
    const decoder = makeSseDecoder()
    const events = [bytes.slice(0, 9), bytes.slice(9, 10), bytes.slice(10, 14), bytes.slice(14)].flatMap((piece) => decoder.feed(piece))
    expect([...events, ...decoder.end()]).toEqual([
      { event: undefined, data: "café ☕" },
      { event: undefined, data: "[DONE]" },
      { event: undefined, data: "tail" }
    ])
  })
})
