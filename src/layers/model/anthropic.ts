import type { ThinkingConfigParam } from "@anthropic-ai/sdk/resources/messages"
import type { IncomingMessage } from "node:http"
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
import { makeAnswerReader } from "./anthropic-answer.js"
import { fromHttpError, fromTransportError } from "./anthropic-errors.js"
import { makeAnthropicBodyEncoder } from "./anthropic-request.js"
import { anthropicProfile, type ModelProfile } from "./model-catalog.js"
import type { ModelConfigError } from "./model-config.js"
import { makeNodeHttpClient, readText } from "./node-http-client.js"
import { checkContextWindow } from "./preflight.js"
import { type AttemptFailure, type AttemptPull, modelAnswer, resolveRetryPolicy } from "./retry.js"

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
 * The API version this adapter speaks: the one the pinned SDK (@anthropic-ai/sdk 1.14), whose
 * types the request is built with, sends.
 */
export const ANTHROPIC_API_VERSION = "2026-10-21"

/** How long a request waits for the answer's status and headers: the SDK's default timeout. */
const HEADERS_TIMEOUT_MS = 600_000

/**
 * The Anthropic Messages API behind the ModelGateway. Requests are built with the SDK's
 * types and sent on `node:http`/`node:https` (`makeNodeHttpClient`), and the answer's
 * server-sent events are read here (`makeSseDecoder`, `readStreamEvent`): the SDK's client
 * and stream reader ran more code per request than the rest of a tool-chain step together
 * (docs/performance.md). Attempts are counted once, by the adapter, which retries only
 * before anything was emitted. Each attempt owns an AbortController released with its
 * scope, so interrupting the stream aborts the HTTP request at once; the keep-alive sockets
 * close with the gateway's scope.
 */
export const make = (config: AnthropicConfig): Effect.Effect<ModelGatewayShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* Effect.acquireRelease(Effect.sync(makeNodeHttpClient), (client) => Effect.sync(client.close))
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
    const url = new URL(`${config.baseUrl.replace(/\/+$/, "")}/v1/messages`)
    const headers = {
      accept: "text/event-stream",
      authorization: `Bearer ${Redacted.value(config.apiKey)}`,
      "anthropic-version": ANTHROPIC_API_VERSION,
      "content-type": "application/json"
    }

    const encodeBody = makeAnthropicBodyEncoder()

    /**
     * One attempt: each pull is the reader's next batch (`makeAnswerReader`). The request is
     * aborted when its scope closes before the answer was read to its end (interruption, a
     * failure, a consumer that stopped early).
     */
    const open = (body: string, scope: Scope.Scope): Effect.Effect<AttemptPull, AttemptFailure> =>
      Effect.gen(function* () {
        let finished = false
        let started: IncomingMessage | undefined
        const controller = new AbortController()
        // A plain scope finalizer: acquireRelease (Effect.addFinalizer) would diff and patch
        // the fiber's refs, the whole context among them, on every model request.
        yield* Scope.addFinalizer(
          scope,
          Effect.sync(() => {
            if (finished) return
            controller.abort()
            started?.destroy()
          })
        )
        const answer = yield* Effect.tryPromise({
          try: () => client.post({ url, headers, body, signal: controller.signal, headersTimeoutMs: HEADERS_TIMEOUT_MS }),
          catch: (error) => fromTransportError(error, "connecting")
        })
        started = answer
        const status = answer.statusCode ?? 0
        if (status < 200 || status >= 300) {
          const text = yield* Effect.tryPromise({ try: () => readText(answer), catch: (error) => fromTransportError(error, "streaming") })
          return yield* Effect.fail(fromHttpError(status, text, answer.headers))
        }
        const reader = makeAnswerReader(answer)
        return Effect.tryPromise({
          try: async () => {
            const batch = await reader.next()
            if (Either.isRight(batch) && batch.right.done) finished = true
            return batch
          },
          catch: (error) => fromTransportError(error, "streaming")
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
