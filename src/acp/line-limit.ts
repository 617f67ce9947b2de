import type { Stream as AcpStream } from "@agentclientprotocol/sdk/unstable"
import { DEFAULT_MAX_MESSAGE_BYTES, ndJsonStream, RequestError } from "@agentclientprotocol/sdk/unstable"

const NEWLINE = 0x0a

const joined = (parts: ReadonlyArray<Uint8Array>, length: number): Uint8Array => {
  const out = new Uint8Array(length)
  let at = 0
  for (const part of parts) {
    out.set(part, at)
    at += part.byteLength
  }
  return out
}

/**
 * Passes whole lines of at most `maxBytes` (newline not counted) on, each ending in a
 * newline; a longer line is dropped as it comes (nothing of it kept past the limit, the
 * rest skipped up to its newline) and reported to `oversized`, and reading goes on with the
 * next line. The SDK's own reader would instead fail the whole stream on such a line.
 */
export const limitLines = (maxBytes: number, oversized: () => Promise<void>): TransformStream<Uint8Array, Uint8Array> => {
  let parts: Array<Uint8Array> = []
  let length = 0
  /** Inside a line already over the limit: its bytes are skipped up to the newline. */
  let skipping = false

  const drop = () => {
    parts = []
    length = 0
  }

  return new TransformStream<Uint8Array, Uint8Array>({
    async transform(chunk, controller) {
      let start = 0
      while (start < chunk.byteLength) {
        const end = chunk.indexOf(NEWLINE, start)
        const stop = end === -1 ? chunk.byteLength : end
        if (!skipping && length + (stop - start) > maxBytes) {
          drop()
          skipping = true
        }
        if (end === -1) {
          if (!skipping) {
            parts.push(chunk.subarray(start))
            length += chunk.byteLength - start
          }
          return
        }
        const line = chunk.subarray(start, end + 1)
        start = end + 1
        if (skipping) {
          skipping = false
          await oversized()
        } else {
          // A line within one chunk goes on as it is, without a copy.
          controller.enqueue(length === 0 ? line : joined([...parts, line], length + line.byteLength))
          drop()
        }
      }
    },
    async flush(controller) {
      if (skipping) return oversized()
      // The last line, without a newline: the SDK reads it at the end of input.
      if (length > 0) controller.enqueue(joined(parts, length))
    }
  })
}

/** The answer to a line over the limit: it cannot be parsed, so it has no id to answer to. */
const oversizedAnswer = (maxBytes: number): Uint8Array => {
  const error = RequestError.invalidRequest({ maxBytes }, `the line exceeds the limit of ${maxBytes} bytes and was skipped`)
  return new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", id: null, error: error.toErrorResponse() })}\n`)
}

/**
 * The protocol over a pair of byte streams, one JSON-RPC message per line, as the SDK's
 * `ndJsonStream`, except that a line over `maxBytes` gets a JSON-RPC error and the
 * connection reads on. The error shares the one writer with the SDK's messages, so
 * messages never interleave.
 */
export const limitedNdJsonStream = (output: WritableStream<Uint8Array>, input: ReadableStream<Uint8Array>, maxBytes = DEFAULT_MAX_MESSAGE_BYTES): AcpStream => {
  const writer = output.getWriter()
  const write = (bytes: Uint8Array) => writer.write(bytes)
  const answer = oversizedAnswer(maxBytes)
  return ndJsonStream(new WritableStream({ write }), input.pipeThrough(limitLines(maxBytes, () => write(answer))), { maxMessageBytes: maxBytes })
}
