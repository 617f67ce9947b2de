import { BaseAnthropic } from "@anthropic-ai/sdk"
import type { RawMessageStreamEvent, ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages"
import type { Stream as SdkStream } from "@anthropic-ai/sdk/streaming"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"
import type { ModelError } from "../../domain/errors.js"
import type { ModelInfo, ModelRequest, ModelStreamEvent } from "../../domain/model.js"
import { ModelGateway, type ModelGatewayShape } from "../../services/ModelGateway.js"
import { type AnthropicConfig, type AnthropicOptions, configFromEnv } from "./anthropic-config.js"
import { fromAnthropicError } from "./anthropic-errors.js"
import { makeAnthropicAssembler } from "./anthropic-events.js"
import { makeAnthropicBodyEncoder } from "./anthropic-request.js"
import { anthropicProfile, type ModelProfile } from "./model-catalog.js"
import type { ModelConfigError } from "./model-config.js"
import { makeNodeHttpFetch } from "./node-http-fetch.js"
import { checkContextWindow } from "./preflight.js"
import { type AttemptBatch, type AttemptFailure, type AttemptPull, modelAnswer, resolveRetryPolicy } from "./retry.js"

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
 * with its scope, so interrupting the stream aborts the HTTP request at once. The SDK sends
 * through `node:http` (`makeNodeHttpFetch`), whose keep-alive sockets close with the scope.
 */
export const make = (config: AnthropicConfig): Effect.Effect<ModelGatewayShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const transport = yield* Effect.acquireRelease(Effect.sync(makeNodeHttpFetch), (transport) => Effect.sync(transport.close))
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
    // The base client: requests go through its post, so none of the API resources (and their code) load.
    const client = new BaseAnthropic({
      apiKey: Redacted.value(config.apiKey),
      baseURL: config.baseUrl,
      maxRetries: 0,
      logLevel: "off",
      openTelemetry: false,
      fetch: transport.fetch
    })

    const encodeBody = makeAnthropicBodyEncoder()

    /**
     * One attempt. Each pull reads the SDK's events in a plain loop until the assembler has
     * something to emit, so only normalized events (a few per answer) pass through the
     * stream, not every SSE event. The request is aborted when its scope closes before the
     * answer was read to its end (interruption, a failure, a consumer that stopped early).
     */
    const open = (body: string, scope: Scope.Scope): Effect.Effect<AttemptPull, AttemptFailure> =>
      Effect.gen(function* () {
        let finished = false
        const controller = new AbortController()
        // A plain scope finalizer: acquireRelease (Effect.addFinalizer) would diff and patch
        // the fiber's refs, the whole context among them, on every model request.
        yield* Scope.addFinalizer(
          scope,
          Effect.sync(() => {
            if (!finished) controller.abort()
          })
        )
        // The SDK's post with the body already encoded (it sends a string with a content-type
        // as it is); messages.create would convert and encode the whole history again.
        const response = yield* Effect.tryPromise({
          try: () =>
            client.post<SdkStream<RawMessageStreamEvent>>("/v1/messages", {
              body,
              headers: { "content-type": "application/json" },
              stream: true,
              signal: controller.signal
            }),
          catch: (error) => fromAnthropicError(error, "connecting")
        })
        const assembler = makeAnthropicAssembler()
        // Read with next(), never for-await: its return() would wait on a pending read.
        const events = response[Symbol.asyncIterator]()
        return Effect.tryPromise({
          try: async (): Promise<Either.Either<AttemptBatch, AttemptFailure>> => {
            for (;;) {
              const next = await events.next()
              if (next.done === true) {
                finished = true
                return Either.map(assembler.end(), (out) => ({ events: out, done: true }))
              }
              const out = assembler.onEvent(next.value)
              if (Either.isLeft(out) || out.right.length > 0) return Either.map(out, (batch) => ({ events: batch, done: false }))
            }
          },
          catch: (error) => fromAnthropicError(error, "streaming")
        }).pipe(Effect.flatMap(Either.match({ onLeft: Effect.fail, onRight: Effect.succeed })))
      })

    const stream = (request: ModelRequest): Stream.Stream<ModelStreamEvent, ModelError> =>
      modelAnswer({
        policy,
        preflight: checkContextWindow({ request, info, reservedOutputTokens: maxTokens, charsPerToken: profile.charsPerToken }),
        open: (scope) =>
          Effect.suspend(() =>
            open(
              encodeBody(request, {
                model: config.model,
                maxTokens,
                promptCaching: config.promptCaching ?? true,
                ...(thinking === undefined ? {} : { thinking })
              }),
              scope
            )
          )
      })

    return { info, stream }
  })

export const layer = (config: AnthropicConfig): Layer.Layer<ModelGateway> => Layer.scoped(ModelGateway, make(config))

/** Reads the environment (see `configFromEnv`) and builds the gateway; fails before any request if the key is missing. */
export const layerFromEnv = (options: AnthropicOptions = {}): Layer.Layer<ModelGateway, ModelConfigError> =>
  Layer.scoped(ModelGateway, Effect.flatMap(configFromEnv(options), make))
