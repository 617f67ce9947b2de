import Anthropic from "@anthropic-ai/sdk"
import type { MessageCreateParamsStreaming, ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages"
import { Effect, Either, Layer, Option, Redacted, Stream } from "effect"
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

/**
 * The Anthropic Messages API behind the ModelGateway, on the official SDK with its own
 * retries off (`maxRetries: 0`), so attempts are counted once, by the adapter, which
 * retries only before anything was emitted. Each attempt owns an AbortController released
 * with its scope, so interrupting the stream aborts the HTTP request at once.
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

    /**
     * One request. Each pull reads the SDK's events in a plain loop until the assembler has
     * something to emit, so only normalized events (a few per answer) pass through the
     * stream, not every SSE event: per step, stream stages cost more than the SDK itself.
     */
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
          // Read with next(), never for-await: its return() would wait on a pending read.
          const events = response[Symbol.asyncIterator]()
          let finished = false
          const nextBatch = Effect.tryPromise({
            try: async (): Promise<Either.Either<ReadonlyArray<ModelStreamEvent>, AttemptFailure>> => {
              for (;;) {
                const next = await events.next()
                const out = next.done === true ? assembler.end() : assembler.onEvent(next.value)
                if (next.done === true) finished = true
                if (Either.isLeft(out) || out.right.length > 0 || finished) return out
              }
            },
            catch: (error) => Option.some(fromAnthropicError(error, "streaming"))
          }).pipe(Effect.flatMap(Either.match({ onLeft: (failure) => Effect.fail(Option.some(failure)), onRight: Effect.succeed })))
          return Stream.repeatEffectOption(Effect.suspend(() => (finished ? Effect.fail(Option.none()) : nextBatch))).pipe(
            Stream.mapConcat((batch) => batch)
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
