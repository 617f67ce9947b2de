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
import { makeResponsesAssembler, responsesLabel } from "./openai-responses-events.js"
import { makeResponsesBodyEncoder } from "./openai-responses-request.js"
import { checkContextWindow } from "./preflight.js"
import { openaiSetup } from "./openai-setup.js"
import { type AttemptFailure, type AttemptPull, modelAnswer } from "./retry.js"
import { openSseAttempt } from "./sse-attempt.js"

/**
 * OpenAI's Responses API (`POST /responses`), streaming, on the platform HTTP client (no SDK).
 * Unlike Chat Completions it carries reasoning between steps: requests are `store: false` and
 * ask for encrypted reasoning items, which the log keeps and the next request sends back.
 * Same contract as the other adapters: preflight before any request, retries only before
 * anything was emitted, and interruption aborts the request.
 */
export const make = (config: OpenAIConfig): Effect.Effect<ModelGatewayShape, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const http = (yield* HttpClient.HttpClient).pipe(HttpClient.withScope)
    const { profile, reserved, policy, info, endpoint } = openaiSetup(config, "responses", "responses")
    const encodeBody = makeResponsesBodyEncoder()
    const options = {
      model: config.model,
      reasoning: profile.capabilities.thinking,
      ...(config.maxOutputTokens === undefined ? {} : { maxOutputTokens: config.maxOutputTokens })
    }

    const open = (body: string): Effect.Effect<AttemptPull, AttemptFailure, Scope.Scope> =>
      Effect.suspend(() =>
        openSseAttempt({ http, endpoint, body, apiKey: config.apiKey, label: responsesLabel, assembler: makeResponsesAssembler() })
      )

    const stream = (request: ModelRequest): Stream.Stream<ModelStreamEvent, ModelError> =>
      modelAnswer({
        policy,
        preflight: checkContextWindow({ request, info, reservedOutputTokens: reserved, charsPerToken: profile.charsPerToken }),
        // The platform client finds its scope in the context (HttpClient.withScope).
        open: (scope) => Effect.suspend(() => Scope.extend(open(encodeBody(request, options)), scope))
      })

    return { info, stream }
  })

/** The gateway on the fetch-based HTTP client. */
export const layer = (config: OpenAIConfig): Layer.Layer<ModelGateway> =>
  Layer.effect(ModelGateway, make(config)).pipe(Layer.provide(FetchHttpClient.layer))

/** Reads the environment as the Chat Completions adapter does (`configFromEnv`) and builds the gateway. */
export const layerFromEnv = (options: OpenAIOptions): Layer.Layer<ModelGateway, ModelConfigError> =>
  Layer.effect(ModelGateway, Effect.flatMap(configFromEnv(options), make)).pipe(Layer.provide(FetchHttpClient.layer))
