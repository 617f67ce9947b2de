import { type HttpClient, HttpClientRequest } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ModelStreamEvent } from "../../domain/model.js"
import { fromHttpError, fromTransportError } from "./openai-errors.js"
import { invalidResponse, type ProviderLabel } from "./provider-errors.js"
import type { AttemptBatch, AttemptFailure, AttemptPull } from "./retry.js"
import { makeSseDecoder, type SseEvent } from "./sse.js"

/** Turns one attempt's server-sent events into normalized events. */
export interface SseAssembler {
  readonly onEvent: (event: SseEvent) => Effect.Effect<ReadonlyArray<ModelStreamEvent>, AttemptFailure>
  /** The body ended. */
  readonly end: Effect.Effect<ReadonlyArray<ModelStreamEvent>, AttemptFailure>
  /** After `event`, the answer is complete: reading stops there (some servers keep the connection open). */
  readonly finished: (event: SseEvent) => boolean
}

export interface SseAttemptOptions {
  /** A client that finds its scope in the context (HttpClient.withScope), so closing the scope aborts the request. */
  readonly http: HttpClient.HttpClient.With<HttpClientError, Scope.Scope>
  readonly endpoint: string
  readonly body: string
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly label: ProviderLabel
  readonly assembler: SseAssembler
}

/**
 * One streaming POST with a bearer key, as OpenAI's APIs (Chat Completions, Responses) take
 * it: an HTTP error becomes a classified AttemptFailure, and the body is read as server-sent
 * events into batches of normalized events for `modelAnswer`.
 */
export const openSseAttempt = (options: SseAttemptOptions): Effect.Effect<AttemptPull, AttemptFailure, Scope.Scope> =>
  Effect.gen(function* () {
    const { assembler, label } = options
    const request = HttpClientRequest.post(options.endpoint).pipe(
      HttpClientRequest.setHeaders({ accept: "text/event-stream" }),
      HttpClientRequest.bodyText(options.body, "application/json"),
      options.apiKey === undefined ? (request) => request : HttpClientRequest.bearerToken(Redacted.value(options.apiKey))
    )
    const response = yield* options.http.execute(request).pipe(Effect.mapError((error) => fromTransportError(error, label)))
    if (response.status >= 400) {
      const text = yield* response.text.pipe(Effect.orElseSucceed(() => "(the error body could not be read)"))
      return yield* Effect.fail(fromHttpError(response.status, text, response.headers, label))
    }
    // A server that ignores `stream: true` answers with one JSON document: say so instead of finding no events.
    if ((response.headers["content-type"] ?? "").includes("application/json")) {
      const text = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
      return yield* Effect.fail(invalidResponse(label, `expected a text/event-stream answer, got JSON: ${text.slice(0, 200)}`))
    }
    const sse = makeSseDecoder()
    const bytes = yield* Stream.toPull(response.stream)
    const nextBytes = bytes.pipe(
      Effect.map(Option.some),
      Effect.catchAll(Option.match({ onNone: () => Effect.succeed(Option.none()), onSome: (error) => Effect.fail(fromTransportError(error, label)) }))
    )
    // A failure after events of the same read is held back one pull, so those events are
    // emitted first (and the failure is then not retried, as it must not be).
    let held: AttemptFailure | undefined
    const holdBack = (events: ReadonlyArray<ModelStreamEvent>, failure: AttemptFailure): Effect.Effect<AttemptBatch, AttemptFailure> => {
      if (events.length === 0) return Effect.fail(failure)
      held = failure
      return Effect.succeed({ events, done: false })
    }
    const read = Effect.gen(function* () {
      if (held !== undefined) return yield* Effect.fail(held)
      const events: Array<ModelStreamEvent> = []
      for (;;) {
        const chunk = yield* nextBytes
        const ended = Option.isNone(chunk)
        const received = Option.isSome(chunk) ? Chunk.toReadonlyArray(chunk.value).flatMap((piece) => sse.feed(piece)) : sse.end()
        for (const event of received) {
          const outcome = yield* Effect.either(assembler.onEvent(event))
          if (Either.isLeft(outcome)) return yield* holdBack(events, outcome.left)
          events.push(...outcome.right)
          if (assembler.finished(event)) return { events, done: true }
        }
        if (ended) {
          const last = yield* Effect.either(assembler.end)
          if (Either.isLeft(last)) return yield* holdBack(events, last.left)
          events.push(...last.right)
          return { events, done: true }
        }
        if (events.length > 0) return { events, done: false }
      }
    })
    return read
  })
