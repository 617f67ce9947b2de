import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Layer, Redacted, Stream } from "effect"
import type { ModelError } from "../../domain/errors.js"
import type { ModelInfo, ModelRequest, ModelStreamEvent } from "../../domain/model.js"
import { ModelGateway, type ModelGatewayShape } from "../../services/ModelGateway.js"
import { openaiProfile } from "./model-catalog.js"
import type { ModelConfigError } from "./model-config.js"
import { configFromEnv, type OpenAIConfig, type OpenAIOptions } from "./openai-config.js"
import { fromHttpError, fromTransportError } from "./openai-errors.js"
import { makeOpenAIAssembler, openaiLabel } from "./openai-events.js"
import { toChatRequest } from "./openai-request.js"
import { checkContextWindow } from "./preflight.js"
import { invalidResponse } from "./provider-errors.js"
import { type AttemptFailure, resolveRetryPolicy, withRetry } from "./retry.js"
import { decodeSse } from "./sse.js"

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

    const attempt = (body: string): Stream.Stream<ModelStreamEvent, AttemptFailure> =>
      Stream.unwrapScoped(
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
          return decodeSse(response.stream.pipe(Stream.mapError(fromTransportError))).pipe(
            // Stop reading at [DONE]: some servers keep the connection open after it.
            Stream.takeUntil((event) => event.data.trim() === "[DONE]"),
            Stream.mapConcatEffect(assembler.onEvent),
            Stream.concat(Stream.fromIterableEffect(assembler.end))
          )
        })
      )

    const stream = (request: ModelRequest): Stream.Stream<ModelStreamEvent, ModelError> =>
      Stream.unwrap(
        checkContextWindow({ request, info, reservedOutputTokens: reserved, charsPerToken: profile.charsPerToken }).pipe(
          Effect.as(
            withRetry(
              policy,
              Stream.suspend(() =>
                attempt(JSON.stringify(toChatRequest(request, {
                  model: config.model,
                  ...(config.maxOutputTokens === undefined ? {} : { maxTokens: config.maxOutputTokens })
                })))
              )
            )
          )
        )
      )

    return { info, stream }
  })

/** The gateway on the fetch-based HTTP client (no extra dependency to provide). */
export const layer = (config: OpenAIConfig): Layer.Layer<ModelGateway> =>
  Layer.effect(ModelGateway, make(config)).pipe(Layer.provide(FetchHttpClient.layer))

/** Reads the environment (see `configFromEnv`) and builds the gateway. */
export const layerFromEnv = (options: OpenAIOptions): Layer.Layer<ModelGateway, ModelConfigError> =>
  Layer.effect(ModelGateway, Effect.flatMap(configFromEnv(options), make)).pipe(Layer.provide(FetchHttpClient.layer))
