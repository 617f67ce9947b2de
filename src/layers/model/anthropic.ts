import Anthropic from "@anthropic-ai/sdk"
import type { MessageCreateParamsStreaming, ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages"
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import type { ModelError } from "../../domain/errors.js"
import type { ModelInfo, ModelRequest, ModelStreamEvent } from "../../domain/model.js"
import { ModelGateway, type ModelGatewayShape } from "../../services/ModelGateway.js"
import { type AnthropicConfig, type AnthropicOptions, configFromEnv } from "./anthropic-config.js"
import { fromAnthropicError } from "./anthropic-errors.js"
import { makeAnthropicAssembler } from "./anthropic-events.js"
import { toAnthropicParams } from "./anthropic-request.js"
import { anthropicProfile, type ModelProfile } from "./model-catalog.js"
import type { ModelConfigError } from "./model-config.js"
import { checkContextWindow } from "./preflight.js"
import { type AttemptFailure, resolveRetryPolicy, withRetry } from "./retry.js"

export { type AnthropicConfig, type AnthropicOptions, configFromEnv, DEFAULT_ANTHROPIC_BASE_URL } from "./anthropic-config.js"

const DEFAULT_MAX_OUTPUT_TOKENS = 32_000
const MIN_THINKING_BUDGET = 1_024

const thinkingConfig = (profile: ModelProfile, budget: number | undefined, maxTokens: number): ThinkingConfigParam | undefined => {
  if (budget === undefined || !profile.capabilities.thinking) return undefined
  switch (profile.thinking) {
    case "adaptive":
      return { type: "adaptive" }
    case "budget":
      // The API wants MIN_THINKING_BUDGET <= budget_tokens < max_tokens.
      return maxTokens > MIN_THINKING_BUDGET
        ? { type: "enabled", budget_tokens: Math.min(Math.max(budget, MIN_THINKING_BUDGET), maxTokens - 1) }
        : undefined
    case "none":
      return undefined
  }
}

/** Pulls an async iterator one item at a time, without ever calling `return()` on it (see below). */
const pull = <A>(iterator: AsyncIterator<A>): Stream.Stream<A, AttemptFailure> =>
  Stream.repeatEffectOption(
    Effect.tryPromise({ try: () => iterator.next(), catch: (error) => Option.some(fromAnthropicError(error, "streaming")) }).pipe(
      Effect.flatMap((result) => (result.done === true ? Effect.fail(Option.none()) : Effect.succeed(result.value)))
    )
  )

/**
 * The Anthropic Messages API behind the ModelGateway, on the official SDK with its own
 * retries off (`maxRetries: 0`), so attempts are counted once, by the adapter, which
 * retries only before anything was emitted. Each attempt owns an AbortController released
 * with its scope, so interrupting the stream aborts the HTTP request at once.
 * (Stream.fromAsyncIterable would call the SDK iterator's `return()` on interruption, which
 * waits for the pending read: with a silent server that never comes. Aborting first ends it.)
 */
export const make = (config: AnthropicConfig): Effect.Effect<ModelGatewayShape> =>
  Effect.sync(() => {
    const profile = anthropicProfile(config.model)
    const maxTokens = config.maxOutputTokens ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, profile.maxOutputTokens)
    const thinking = thinkingConfig(profile, config.thinkingBudget, maxTokens)
    const policy = resolveRetryPolicy(config.retry)
    const info: ModelInfo = {
      id: `anthropic/${config.model}`,
      provider: "anthropic",
      contextWindow: config.contextWindow ?? profile.contextWindow,
      maxOutputTokens: maxTokens,
      capabilities: profile.capabilities
    }
    const client = new Anthropic({
      apiKey: Redacted.value(config.apiKey),
      baseURL: config.baseUrl,
      maxRetries: 0,
      logLevel: "off",
      openTelemetry: false
    })

    const attempt = (params: MessageCreateParamsStreaming): Stream.Stream<ModelStreamEvent, AttemptFailure> =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          const controller = yield* Effect.acquireRelease(
            Effect.sync(() => new AbortController()),
            (controller) => Effect.sync(() => controller.abort())
          )
          const response = yield* Effect.tryPromise({
            try: () => client.messages.create(params, { signal: controller.signal }),
            catch: (error) => fromAnthropicError(error, "connecting")
          })
          const assembler = makeAnthropicAssembler()
          return pull(response[Symbol.asyncIterator]()).pipe(
            Stream.mapConcatEffect(assembler.onEvent),
            Stream.concat(Stream.fromIterableEffect(assembler.end))
          )
        })
      )

    const stream = (request: ModelRequest): Stream.Stream<ModelStreamEvent, ModelError> =>
      Stream.unwrap(
        checkContextWindow({ request, info, reservedOutputTokens: maxTokens, charsPerToken: profile.charsPerToken }).pipe(
          Effect.as(
            withRetry(
              policy,
              Stream.suspend(() =>
                attempt(
                  toAnthropicParams(request, {
                    model: config.model,
                    maxTokens,
                    promptCaching: config.promptCaching ?? true,
                    ...(thinking === undefined ? {} : { thinking })
                  })
                )
              )
            )
          )
        )
      )

    return { info, stream }
  })

export const layer = (config: AnthropicConfig): Layer.Layer<ModelGateway> => Layer.effect(ModelGateway, make(config))

/** Reads the environment (see `configFromEnv`) and builds the gateway; fails before any request if the key is missing. */
export const layerFromEnv = (options: AnthropicOptions = {}): Layer.Layer<ModelGateway, ModelConfigError> =>
  Layer.effect(ModelGateway, Effect.flatMap(configFromEnv(options), make))
