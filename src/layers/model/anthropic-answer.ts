import * as Either from "effect/Either"
import type { IncomingMessage } from "node:http"
import { fromStreamError } from "./anthropic-errors.js"
import { anthropicLabel, makeAnthropicAssembler } from "./anthropic-events.js"
import { readStreamEvent } from "./anthropic-stream-events.js"
import { invalidResponse } from "./provider-errors.js"
import type { AttemptBatch, AttemptFailure } from "./retry.js"
import { makeSseDecoder, type SseEvent } from "./sse.js"

/**
 * Server-sent events with nothing to read in them: `ping`, and any event without a name (the
 * SDK skips those too). `error` is read as the provider's error.
 */
const skipped = (event: string | undefined) => event === undefined || event === "ping"

/**
 * Reads a Messages answer's body (status 2xx) as it arrives. Each `next()` reads chunks until
 * the assembler has something to emit, so only normalized events (a few per answer) reach the
 * stream, not every server-sent event; the last batch is `done`. A broken connection rejects
 * (the caller maps it); an `event: error`, an event that is not JSON or lacks a field the
 * assembler reads, and a stream cut before `message_stop` are failures in the result.
 */
export const makeAnswerReader = (answer: IncomingMessage) => {
  const assembler = makeAnthropicAssembler()
  const decoder = makeSseDecoder()
  const chunks = answer[Symbol.asyncIterator]()
  // Events read from a chunk and not yet given to the assembler.
  let pending: ReadonlyArray<SseEvent> = []
  let at = 0

  const fromPending = (): Either.Either<AttemptBatch, AttemptFailure> | undefined => {
    while (at < pending.length) {
      const sse = pending[at++]
      if (sse === undefined || skipped(sse.event) || sse.data === "") continue
      if (sse.event === "error") return Either.left(fromStreamError(sse.data))
      let json: unknown
      try {
        json = JSON.parse(sse.data)
      } catch (error) {
        return Either.left(invalidResponse(anthropicLabel, `a stream event is not JSON (${error instanceof Error ? error.message : String(error)})`))
      }
      const read = readStreamEvent(json)
      if (!read.ok) return Either.left(invalidResponse(anthropicLabel, read.problem))
      const out = assembler.onEvent(read.event)
      if (Either.isLeft(out) || out.right.length > 0) return Either.map(out, (batch) => ({ events: batch, done: false }))
    }
    return undefined
  }

  const next = async (): Promise<Either.Either<AttemptBatch, AttemptFailure>> => {
    for (;;) {
      const batch = fromPending()
      if (batch !== undefined) return batch
      const read = await chunks.next()
      if (read.done === true) {
        pending = decoder.end()
        at = 0
        return fromPending() ?? Either.map(assembler.end(), (out) => ({ events: out, done: true }))
      }
      const chunk: unknown = read.value
      pending = decoder.feed(chunk instanceof Uint8Array ? chunk : Buffer.from(String(chunk)))
      at = 0
    }
  }

  return { next }
}
