import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { ModelGateway } from "../../services/ModelGateway.js"
import { ModelConfigError, optionalVariable } from "./model-config.js"
import * as ChatCompletions from "./openai-compatible.js"
import { configFromEnv, isOpenAIEndpoint, type OpenAIOptions } from "./openai-config.js"
import * as Responses from "./openai-responses.js"

export type OpenAIWireApi = "responses" | "chat-completions"

/** `OPENAI_API`: `responses` or `chat-completions`, for a server the base URL alone does not tell apart (a proxy serving Responses). */
const wireApiFromEnv: Effect.Effect<Option.Option<OpenAIWireApi>, ModelConfigError> = Effect.flatMap(
  optionalVariable("OPENAI_API"),
  Option.match({
    onNone: () => Effect.succeed(Option.none()),
    onSome: (value) =>
      value === "responses" || value === "chat-completions"
        ? Effect.succeed(Option.some(value))
        : Effect.fail(new ModelConfigError({ variable: "OPENAI_API", message: `OPENAI_API must be responses or chat-completions, got ${value}` }))
  })
)

/**
 * `openai/<id>`: the Responses API on OpenAI's own endpoint (the default base URL, or
 * `OPENAI_BASE_URL` naming api.openai.com), which carries reasoning between steps; Chat
 * Completions on any other server, which rarely serves Responses. `OPENAI_API` overrides
 * the choice either way.
 */
export const layerFromEnv = (options: OpenAIOptions): Layer.Layer<ModelGateway, ModelConfigError> =>
  Layer.unwrapEffect(
    Effect.map(Effect.all({ config: configFromEnv(options), api: wireApiFromEnv }), ({ api, config }) => {
      const chosen = Option.getOrElse(api, (): OpenAIWireApi => (isOpenAIEndpoint(config.baseUrl) ? "responses" : "chat-completions"))
      return chosen === "responses" ? Responses.layer(config) : ChatCompletions.layer(config)
    })
  )
