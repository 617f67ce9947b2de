import { FetchHttpClient, HttpClient } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { ModelError } from "../../domain/errors.js"
import type { ModelRequest, ModelStreamEvent } from "../../domain/model.js"
import { ModelGateway, type ModelGatewayShape } from "../../services/ModelGateway.js"
import type { ModelConfigError } from "./model-config.js"
import { configFromEnv, type OpenAIConfig, type OpenAIOptions } from "./openai-config.js"
import { makeOpenAIAssembler, openaiLabel } from "./openai-events.js"
import { makeChatBodyEncoder } from "./openai-request.js"
import { checkContextWindow } from "./preflight.js"
import { openaiSetup } from "./openai-setup.js"
import { type AttemptFailure, type AttemptPull, modelAnswer } from "./retry.js"
import { openSseAttempt } from "./sse-attempt.js"

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
    const { profile, reserved, policy, info, endpoint } = openaiSetup(config, "chat-completions", "chat/completions")
    const newId = () => `call_${crypto.randomUUID().replaceAll("-", "")}`
    const encodeBody = makeChatBodyEncoder()

    const open = (body: string): Effect.Effect<AttemptPull, AttemptFailure, Scope.Scope> =>
      Effect.suspend(() => {
        const assembler = makeOpenAIAssembler(newId)
        return openSseAttempt({
          http,
          endpoint,
          body,
          apiKey: config.apiKey,
          label: openaiLabel,
          // Stop reading at [DONE]: some servers keep the connection open after it.
          assembler: { ...assembler, finished: (event) => event.data.trim() === "[DONE]" }
        })
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
