import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { ModelError } from "../../domain/errors.js"
import type { ModelInfo, ModelRequest, ModelStreamEvent } from "../../domain/model.js"
import { ModelGateway, type ModelGatewayShape } from "../../services/ModelGateway.js"
import { openaiProfile } from "./model-catalog.js"
import type { ModelConfigError } from "./model-config.js"
import { configFromEnv, type OpenAIConfig, type OpenAIOptions } from "./openai-config.js"
import { fromHttpError, fromTransportError } from "./openai-errors.js"
import { makeOpenAIAssembler, openaiLabel } from "./openai-events.js"
import { makeChatBodyEncoder } from "./openai-request.js"
import { checkContextWindow } from "./preflight.js"
import { invalidResponse } from "./provider-errors.js"
import { type AttemptBatch, type AttemptFailure, type AttemptPull, modelAnswer, resolveRetryPolicy } from "./retry.js"
import { makeSseDecoder } from "./sse.js"

export { configFromEnv, DEFAULT_OPENAI_BASE_URL, type OpenAIConfig, type OpenAIOptions } from "./openai-config.js"

/**
 * Chat Completions streaming, as OpenAI, vLLM, llama.cpp's server and Ollama serve it, on
 * the platform HTTP client (no SDK). Same contract as the Anthropic adapter: preflight
 * before any request, retries only before anything was emitted, and interruption aborts
 * the request (the client is scoped to each attempt, so closing the scope aborts it).
 */
export const make = (config: OpenAIConfig): Effect.Effect<ModelGatewayShape, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const http = (yield* HttpClient.HttpClient).pipe(HttpClient.withScope)
    const profile = openaiProfile(config.model)
    const reserved = config.maxOutputTokens ?? profile.maxOutputTokens
    const policy = resolveRetryPolicy(config.retry)
    const info: ModelInfo = {
      id: `openai/${config.model}`,
      provider: "openai",
      contextWindow: config.contextWindow ?? profile.contextWindow,
      maxOutputTokens: reserved,
      capabilities: profile.capabilities
    }
    const endpoint = `${config.baseUrl.replace(/\/+$/, "")}/chat/completions`
    const newId = () => `call_${crypto.randomUUID().replaceAll("-", "")}`
    const encodeBody = makeChatBodyEncoder()

    const open = (body: string): Effect.Effect<AttemptPull, AttemptFailure, Scope.Scope> =>
      Effect.gen(function* () {
        const request = HttpClientRequest.post(endpoint).pipe(
          HttpClientRequest.setHeaders({ accept: "text/event-stream" }),
          HttpClientRequest.bodyText(body, "application/json"),
          config.apiKey === undefined ? (request) => request : HttpClientRequest.bearerToken(Redacted.value(config.apiKey))
        )
        const response = yield* http.execute(request).pipe(Effect.mapError(fromTransportError))
        if (response.status >= 400) {
          const text = yield* response.text.pipe(Effect.orElseSucceed(() => "(the error body could not be read)"))
          return yield* Effect.fail(fromHttpError(response.status, text, response.headers))
        }
        // A server that ignores `stream: true` answers with one JSON document: say so instead of finding no events.
        if ((response.headers["content-type"] ?? "").includes("application/json")) {
          const text = yield* response.text.pipe(Effect.orElseSucceed(() => ""))
          return yield* Effect.fail(invalidResponse(openaiLabel, `expected a text/event-stream answer, got JSON: ${text.slice(0, 200)}`))
        }
        const assembler = makeOpenAIAssembler(newId)
        const sse = makeSseDecoder()
        const bytes = yield* Stream.toPull(response.stream)
        const nextBytes = bytes.pipe(
          Effect.map(Option.some),
          Effect.catchAll(Option.match({ onNone: () => Effect.succeed(Option.none()), onSome: (error) => Effect.fail(fromTransportError(error)) }))
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
              // Stop reading at [DONE]: some servers keep the connection open after it.
              if (event.data.trim() === "[DONE]") return { events, done: true }
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

    const stream = (request: ModelRequest): Stream.Stream<ModelStreamEvent, ModelError> =>
      modelAnswer({
        policy,
        preflight: checkContextWindow({ request, info, reservedOutputTokens: reserved, charsPerToken: profile.charsPerToken }),
        // The platform client finds its scope in the context (HttpClient.withScope).
        open: (scope) =>
          Effect.suspend(() =>
            Scope.extend(
              open(encodeBody(request, {
                model: config.model,
                ...(config.maxOutputTokens === undefined ? {} : { maxTokens: config.maxOutputTokens })
              })),
              scope
            )
          )
      })

    return { info, stream }
  })

/** The gateway on the fetch-based HTTP client (no extra dependency to provide). */
export const layer = (config: OpenAIConfig): Layer.Layer<ModelGateway> =>
  Layer.effect(ModelGateway, make(config)).pipe(Layer.provide(FetchHttpClient.layer))

/** Reads the environment (see `configFromEnv`) and builds the gateway. */
export const layerFromEnv = (options: OpenAIOptions): Layer.Layer<ModelGateway, ModelConfigError> =>
  Layer.effect(ModelGateway, Effect.flatMap(configFromEnv(options), make)).pipe(Layer.provide(FetchHttpClient.layer))
