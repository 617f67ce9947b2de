import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ModelGateway } from "../../services/ModelGateway.js"
import type { ModelConfigError } from "./model-config.js"
import * as ChatCompletions from "./openai-compatible.js"
import { configFromEnv, isOpenAIEndpoint, type OpenAIOptions } from "./openai-config.js"
import * as Responses from "./openai-responses.js"

/**
 * `openai/<id>`: the Responses API on OpenAI's own endpoint (the default base URL, or
 * `OPENAI_BASE_URL` naming api.openai.com), which carries reasoning between steps; Chat
 * Completions on any other server, which rarely serves Responses.
 */
export const layerFromEnv = (options: OpenAIOptions): Layer.Layer<ModelGateway, ModelConfigError> =>
  Layer.unwrapEffect(
    Effect.map(configFromEnv(options), (config) => (isOpenAIEndpoint(config.baseUrl) ? Responses.layer(config) : ChatCompletions.layer(config)))
  )
