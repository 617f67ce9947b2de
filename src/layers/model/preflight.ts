import { Effect } from "effect"
import { ModelError } from "../../domain/errors.js"
import type { ModelInfo, ModelRequest } from "../../domain/model.js"

/** Framing the providers add around content (role markers, block headers, tool wrappers). */
const REQUEST_OVERHEAD = 32
const MESSAGE_OVERHEAD = 8
const PART_OVERHEAD = 4
const TOOL_OVERHEAD = 16

const jsonLength = (value: unknown): number => JSON.stringify(value ?? null).length

/**
 * Estimates a request's prompt tokens, erring high: we would rather refuse a prompt that
 * might have fitted than send one that cannot. The rule: every character the model reads
 * (system prompt, text, thinking text and redacted thinking payloads, tool names, tool call
 * inputs as JSON, tool results, tool definitions as JSON) counts `1 / charsPerToken` tokens,
 * rounded up once over the total; on top, the request costs 32 tokens, each message 8, each
 * content part 4 and each tool definition 16. English prose runs at about 4 characters per
 * token and code at about 3 on classic tokenizers, so 3 (2.5 for Claude's newer tokenizer,
 * which counts about 30% more) is high for prose and about right for dense code. Output
 * tokens are reserved on top, in full, because the providers count them against the window.
 */
export const estimatePromptTokens = (request: ModelRequest, charsPerToken: number): number => {
  let chars = request.system.length
  let overhead = REQUEST_OVERHEAD
  for (const message of request.messages) {
    overhead += MESSAGE_OVERHEAD
    for (const part of message.content) {
      overhead += PART_OVERHEAD
      switch (part._tag) {
        case "text":
          chars += part.text.length
          break
        case "thinking":
          chars += part.text.length + (part.redacted?.length ?? 0)
          break
        case "tool_call":
          chars += part.name.length + part.toolCallId.length + jsonLength(part.input)
          break
        case "tool_result":
          chars += part.toolCallId.length + part.output.length
          break
      }
    }
  }
  for (const tool of request.tools) {
    overhead += TOOL_OVERHEAD
    chars += tool.name.length + tool.description.length + jsonLength(tool.inputSchema)
  }
  return Math.ceil(chars / charsPerToken) + overhead
}

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
