import type { AnyMessage } from "@agentclientprotocol/sdk/unstable"
import { describe, expect, it } from "@effect/vitest"
import { limitedNdJsonStream } from "../../src/acp/line-limit.js"

const encoder = new TextEncoder()

/** Runs `chunks` through the stream with a small limit: the messages read, and the lines written back. */
const run = async (chunks: ReadonlyArray<string>, maxBytes: number) => {
  const input = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
      controller.close()
    }
  })
  let written = ""
  const output = new WritableStream<Uint8Array>({ write: (bytes) => void (written += new TextDecoder().decode(bytes)) })
  const stream = limitedNdJsonStream(output, input, maxBytes)
  const read: Array<AnyMessage> = []
  const reader = stream.readable.getReader()
  for (let next = await reader.read(); next.done !== true; next = await reader.read()) read.push(next.value)
  return { read, written: written.split("\n").filter((line) => line !== "").map((line): unknown => JSON.parse(line)) }
}

const request = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "m" })
const oversized = (maxBytes: number) => ({
  jsonrpc: "2.0",
  id: null,
  error: { code: -32600, message: expect.stringContaining(`exceeds the limit of ${maxBytes} bytes`), data: { maxBytes } }
})

describe("ACP input lines over the size limit", () => {
  it("answers a line over the limit with an error (id null) and reads on from the next line, however the bytes arrive", async () => {
    const long = `{"jsonrpc":"2.0","id":9,"method":"m","params":"${"x".repeat(100)}"}`
    expect(await run([`${request(1)}\n${long}\n${request(2)}\n`], 40)).toEqual({ read: [JSON.parse(request(1)), JSON.parse(request(2))], written: [oversized(40)] })
    // Split across chunks, the newline in a chunk of its own, CRLF line ends, a last line without a newline.
    const split = [`${request(1)}\r`, "\n", long.slice(0, 30), long.slice(30, 70), long.slice(70), "\n", `${request(2)}\r\n`, request(3)]
    expect(await run(split, 40)).toEqual({ read: [1, 2, 3].map((id) => JSON.parse(request(id))), written: [oversized(40)] })
  })

  it("takes a line of exactly the limit; an oversized last line without a newline is answered too", async () => {
    const exact = request(12345678901234)
    expect(await run([`${exact}\n`, "x".repeat(exact.length + 1)], exact.length)).toEqual({ read: [JSON.parse(exact)], written: [oversized(exact.length)] })
  })
})
