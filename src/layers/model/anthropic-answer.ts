import * as Either from "effect/Either"
import type { ModelStreamEvent } from "../../domain/model.js"
import { fromStreamError } from "./anthropic-errors.js"
import { anthropicLabel, makeAnthropicAssembler } from "./anthropic-events.js"
import { readStreamEvent } from "./anthropic-stream-events.js"
import { invalidResponse } from "./provider-errors.js"
import type { AttemptBatch, AttemptFailure } from "./retry.js"
import { makeSseDecoder, type SseEvent } from "./sse.js"
import { messageOf } from "../../domain/cause-message.js"

/**
 * Server-sent events with nothing to read in them: `ping`, and any event without a name (the
 * SDK skips those too). `error` is read as the provider's error.
 */
const skipped = (event: string | undefined) => event === undefined || event === "ping"

/**
 * Reads a Messages answer's body (status 2xx; an IncomingMessage is one) as it arrives. Each
 * `next()` gives the normalized events of every chunk that has arrived (a few per answer, not
 * every server-sent event), reading more only while there are none. After `message_stop` it
 * reads on to the body's end, which is due at once, so the last events come with `done` (one
 * read less per answer, and the connection is free for the next request). A broken
 * connection rejects (the caller maps it); an `event: error`, an event that is not JSON or
 * lacks a field the assembler reads, and a stream cut before `message_stop` are failures in
 * the result. A failure or a rejection met after events waits for the next call, so those
 * events are emitted first (and the failure is then not retried, as it must not be).
 */
export const makeAnswerReader = (body: AsyncIterable<unknown>) => {
  const assembler = makeAnthropicAssembler()
  const decoder = makeSseDecoder()
  const chunks = body[Symbol.asyncIterator]()
  // Events read from a chunk and not yet given to the assembler.
  let pending: ReadonlyArray<SseEvent> = []
  let at = 0
  let held: { readonly failure: AttemptFailure } | { readonly rejection: unknown } | undefined

  /** Gives the pending events to the assembler, its output into `out`, until they are used up or one fails. */
  const assemble = (out: Array<ModelStreamEvent>): AttemptFailure | undefined => {
    while (at < pending.length) {
      const sse = pending[at++]
      if (sse === undefined || skipped(sse.event) || sse.data === "") continue
      if (sse.event === "error") return fromStreamError(sse.data)
      let json: unknown
      try {
        json = JSON.parse(sse.data)
      } catch (error) {
        return invalidResponse(anthropicLabel, `a stream event is not JSON (${messageOf(error)})`)
      }
      const read = readStreamEvent(json)
      if (!read.ok) return invalidResponse(anthropicLabel, read.problem)
      const batch = assembler.onEvent(read.event)
      if (Either.isLeft(batch)) return batch.left
      out.push(...batch.right)
    }
    return undefined
  }

  const holdBack = (out: ReadonlyArray<ModelStreamEvent>, failure: AttemptFailure): Either.Either<AttemptBatch, AttemptFailure> => {
    if (out.length === 0) return Either.left(failure)
    held = { failure }
    return Either.right({ events: out, done: false })
  }

  const next = async (): Promise<Either.Either<AttemptBatch, AttemptFailure>> => {
    if (held !== undefined) {
      if ("failure" in held) return Either.left(held.failure)
      throw held.rejection
    }
    const out: Array<ModelStreamEvent> = []
    for (;;) {
      const failure = assemble(out)
      if (failure !== undefined) return holdBack(out, failure)
      if (out.length > 0 && !assembler.stopped()) return Either.right({ events: out, done: false })
      let read: IteratorResult<unknown>
      try {
        read = await chunks.next()
      } catch (rejection) {
        if (out.length === 0) throw rejection
        held = { rejection }
        return Either.right({ events: out, done: false })
      }
      if (read.done === true) {
        pending = decoder.end()
        at = 0
        const last = assemble(out)
        if (last !== undefined) return holdBack(out, last)
        const end = assembler.end()
        if (Either.isLeft(end)) return holdBack(out, end.left)
        out.push(...end.right)
        return Either.right({ events: out, done: true })
      }
      const chunk: unknown = read.value
      pending = decoder.feed(chunk instanceof Uint8Array ? chunk : Buffer.from(String(chunk)))
      at = 0
    }
  }

  return { next }
}
