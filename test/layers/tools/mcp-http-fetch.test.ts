import { describe, expect, it } from "vitest"
import { boundedFetch, MESSAGE_LIMIT_BYTES, McpResponseTooLarge, REQUEST_STREAM_LIMIT_BYTES } from "../../../src/layers/tools/mcp-http-fetch.js"

const encoder = new TextEncoder()

/** A fetch answering every request with `pieces` as the body's chunks, under `contentType`. */
const answering = (contentType: string, pieces: ReadonlyArray<string>) => async () =>
  new Response(
    new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(encoder.encode(piece))
        controller.close()
      }
    }),
    { headers: { "content-type": contentType } }
  )

/** Reads the bounded body to its end: the bytes passed on, and the limit error it ended with (if any); `heard` what `onTooLarge` was told. */
const readThrough = async (method: string, contentType: string, pieces: ReadonlyArray<string>) => {
  const heard: Array<McpResponseTooLarge> = []
  const response = await boundedFetch("srv", (error) => heard.push(error), answering(contentType, pieces))("http://127.0.0.1/mcp", { method })
  const reader = response.body?.getReader()
  let passed = 0
  try {
    for (;;) {
      const next = await reader?.read()
      if (next === undefined || next.done) return { passed, error: undefined, heard }
      passed += next.value.byteLength
    }
  } catch (error) {
    if (error instanceof McpResponseTooLarge) return { passed, error, heard }
    throw error
  }
}

const event = (bytes: number, eol: string) => `data: ${"x".repeat(bytes)}${eol}${eol}`
const nearLimit = MESSAGE_LIMIT_BYTES - 1024

describe("boundedFetch", () => {
  it("passes events each under the limit, however many (a GET stream), whatever their line ends", async () => {
    // The last two: a CR at a chunk's end, then a CRLF split over two chunks.
    const pieces = [event(nearLimit, "\n"), event(nearLimit, "\r\n"), event(nearLimit, "\r"), `data: a\r`, `data: b\r`, "\n\r\n", event(nearLimit, "\n")]
    const read = await readThrough("GET", "text/event-stream", pieces)
    expect(read.error).toBeUndefined()
    expect(read.passed).toBe(pieces.join("").length)
  })

  it("cuts off one event over the limit, even one made of many short lines or split over chunks", async () => {
    const lines = `data: ${"y".repeat(1000)}\n`.repeat(Math.ceil(MESSAGE_LIMIT_BYTES / 1000))
    const split = [event(10, "\n"), `data: ${"z".repeat(nearLimit)}`, "z".repeat(4096), "\n\n"]
    for (const pieces of [[lines, "\n"], split]) {
      const read = await readThrough("GET", "text/event-stream", pieces)
      expect(read.error).toMatchObject({ _tag: "McpResponseTooLarge", server: "srv", limit: "message", limitBytes: MESSAGE_LIMIT_BYTES })
      expect(read.heard).toEqual([read.error])
      expect(read.passed).toBeLessThanOrEqual(MESSAGE_LIMIT_BYTES)
    }
  })

  it("cuts off a POST's event stream over its limit in all, though each event is small", async () => {
    const pieces = Array.from({ length: Math.ceil(REQUEST_STREAM_LIMIT_BYTES / nearLimit) + 1 }, () => event(nearLimit, "\n"))
    const read = await readThrough("POST", "text/event-stream; charset=utf-8", pieces)
    expect(read.error).toMatchObject({ limit: "request stream", limitBytes: REQUEST_STREAM_LIMIT_BYTES })
    expect(read.error?.message).toBe('MCP server "srv" sent an event stream answering one request over 16.0 MiB, the most it may take')
    expect(read.passed).toBeLessThanOrEqual(REQUEST_STREAM_LIMIT_BYTES)
  })

  it("limits a JSON body as one message, blank lines or not", async () => {
    const read = await readThrough("POST", "application/json", [event(nearLimit, "\n"), event(nearLimit, "\n")])
    expect(read.error).toMatchObject({ limit: "message" })
    expect(read.error?.message).toBe('MCP server "srv" sent a message over 4.0 MiB, the most it may take')
    expect(read.passed).toBeLessThanOrEqual(MESSAGE_LIMIT_BYTES)
  })
})
