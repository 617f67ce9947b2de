import { mediaTypeEssence } from "@modelcontextprotocol/sdk/shared/mediaType.js"
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js"
import * as Data from "effect/Data"
import { formatBytes } from "./format-bytes.js"

/**
 * The most one JSON-RPC message from an HTTP MCP server may take. A model's whole context
 * holds well under 1 MiB of text, and images, audio and blobs reach it only as a one-line
 * description, so a bigger message is of no use to the agent, only a way to fill its memory.
 */
export const MESSAGE_LIMIT_BYTES = 4 * 1024 * 1024

/**
 * The most the event stream answering one request may carry in all (the answer and the
 * progress or log notifications sent along with it): a server that never stops sending
 * events for a request is cut off rather than read for ever.
 */
export const REQUEST_STREAM_LIMIT_BYTES = 4 * MESSAGE_LIMIT_BYTES

/** An HTTP MCP server sent more than one of the limits above; what it sent past the limit was not read. */
export class McpResponseTooLarge extends Data.TaggedError("McpResponseTooLarge")<{
  readonly server: string
  readonly limit: "message" | "request stream"
  readonly limitBytes: number
}> {
  override get message() {
    const what = this.limit === "message" ? "a message" : "an event stream answering one request"
    return `MCP server "${this.server}" sent ${what} over ${formatBytes(this.limitBytes)}, the most it may take`
  }
}

const LF = 0x0a
const CR = 0x0d

/** Where `byte` next occurs in `chunk` at or after `from`; the chunk's length when nowhere. */
const nextIndex = (chunk: Uint8Array, byte: number, from: number) => {
  const found = chunk.indexOf(byte, from)
  return found === -1 ? chunk.length : found
}

/**
 * Measures an SSE body event by event: the count starts again at each blank line, where an
 * event ends (a line ends at LF, CR or CRLF). Answers the most bytes an event has had so far
 * in this chunk. Lines are found with `indexOf`, not byte by byte: large answers pass often.
 */
const sseEventMeter = () => {
  let eventBytes = 0
  let lineBytes = 0
  let afterCR = false
  return (chunk: Uint8Array): number => {
    let largest = eventBytes
    let at = 0
    let nextLF = -1
    let nextCR = -1
    while (at < chunk.length) {
      // The LF of a CRLF ends no second line.
      if (afterCR) {
        afterCR = false
        if (chunk[at] === LF) {
          at++
          continue
        }
      }
      if (nextLF < at) nextLF = nextIndex(chunk, LF, at)
      if (nextCR < at) nextCR = nextIndex(chunk, CR, at)
      const end = Math.min(nextLF, nextCR)
      const bytes = end - at
      lineBytes += bytes
      eventBytes += bytes
      largest = Math.max(largest, eventBytes)
      if (end === chunk.length) break
      if (lineBytes === 0) eventBytes = 0
      lineBytes = 0
      afterCR = chunk[end] === CR
      at = end + 1
    }
    return largest
  }
}

/** Which limit a chunk would break, given what came before it; undefined while both hold. */
type Meter = (chunk: Uint8Array) => McpResponseTooLarge["limit"] | undefined

const meterFor = (response: Response, method: string): Meter => {
  // Read as the SDK reads it: as events exactly when it parses the body as events.
  const isEventStream = method === "GET" || mediaTypeEssence(response.headers.get("content-type")) === "text/event-stream"
  let total = 0
  if (!isEventStream) {
    // A JSON body is one message (or one batch of them).
    return (chunk) => ((total += chunk.byteLength) > MESSAGE_LIMIT_BYTES ? "message" : undefined)
  }
  const event = sseEventMeter()
  // A GET stream is the session's channel for the server's own messages, open as long as the
  // session: only each event is limited. A POST's stream answers one request.
  const totalLimit = method === "POST" ? REQUEST_STREAM_LIMIT_BYTES : Number.POSITIVE_INFINITY
  return (chunk) => {
    if (event(chunk) > MESSAGE_LIMIT_BYTES) return "message"
    return (total += chunk.byteLength) > totalLimit ? "request stream" : undefined
  }
}

/**
 * The fetch an HTTP MCP transport makes every request with: each response's body is read
 * through a meter, and the chunk that would break a limit is never passed on; the body fails
 * with McpResponseTooLarge instead (which cancels the rest of it, closing the connection),
 * and `onTooLarge` hears of it, as the SDK reports a broken event stream only as a log line.
 */
export const boundedFetch = (server: string, onTooLarge: (error: McpResponseTooLarge) => void, base: FetchLike = fetch): FetchLike =>
  async (url, init) => {
    const response = await base(url, init)
    if (response.body === null) return response
    const meter = meterFor(response, (init?.method ?? "GET").toUpperCase())
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          const broken = meter(chunk)
          if (broken === undefined) return controller.enqueue(chunk)
          const error = new McpResponseTooLarge({
            server,
            limit: broken,
            limitBytes: broken === "message" ? MESSAGE_LIMIT_BYTES : REQUEST_STREAM_LIMIT_BYTES
          })
          onTooLarge(error)
          controller.error(error)
        }
      })
    )
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
  }
