import * as Effect from "effect/Effect"
import { ModelError } from "../../domain/errors.js"
import type { ModelInfo, ModelRequest } from "../../domain/model.js"
import { estimatePromptTokens } from "../../domain/tokens.js"


/**
 * Fails with `context_overflow`, before any request is sent, when the estimated prompt plus
 * the output tokens the request reserves does not fit the model's context window.
 */
export const checkContextWindow = (options: {
  readonly request: ModelRequest
  readonly info: ModelInfo
  readonly reservedOutputTokens: number
  readonly charsPerToken: number
}): Effect.Effect<void, ModelError> =>
  Effect.suspend(() => {
    const estimate = estimatePromptTokens(options.request, options.charsPerToken)
    const needed = estimate + options.reservedOutputTokens
    if (needed <= options.info.contextWindow) return Effect.void
    return Effect.fail(
      new ModelError({
        code: "context_overflow",
        message: `the prompt needs about ${estimate} tokens (estimated) plus ${options.reservedOutputTokens} reserved for ` +
          `output, more than the ${options.info.contextWindow}-token context window of ${options.info.id}; ` +
          `nothing was sent`
      })
    )
  })
