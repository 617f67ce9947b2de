import type { ModelCapabilities } from "../../domain/model.js"

/** How a model takes a request for extended thinking. */
export type ThinkingStyle =
  | "adaptive" // `thinking: {type: "adaptive"}`; newer Claude models reject a token budget
  | "budget" // `thinking: {type: "enabled", budget_tokens}`
  | "none"

/** What the adapters and the preflight need to know about a model. */
export interface ModelProfile {
  readonly contextWindow: number
  /** The model's own output limit; requests ask for at most this. */
  readonly maxOutputTokens: number
  readonly capabilities: ModelCapabilities
  readonly thinking: ThinkingStyle
  /**
   * Characters per token the preflight assumes. Lower is more cautious: Claude 4.7 and later
   * use a tokenizer that counts about 30% more tokens for the same text, so they get 2.5.
   */
  readonly charsPerToken: number
}

const full: ModelCapabilities = { streaming: true, toolCalls: true, thinking: true, images: true }

const claudeNewTokenizer: ModelProfile = {
  contextWindow: 1_000_000,
  maxOutputTokens: 128_000,
  capabilities: full,
  thinking: "adaptive",
  charsPerToken: 2.5
}

const claude46: ModelProfile = { ...claudeNewTokenizer, charsPerToken: 3 }

const claude45: ModelProfile = {
  contextWindow: 200_000,
  maxOutputTokens: 64_000,
  capabilities: full,
  thinking: "budget",
  charsPerToken: 3
}

/** Claude models whose limits were checked against Anthropic's model pages (late 2026). */
const anthropicModels: Readonly<Record<string, ModelProfile>> = {
  "claude-fable-5-2": claudeNewTokenizer,
  "claude-fable-5-1": claudeNewTokenizer,
  "claude-opus-5-5": claudeNewTokenizer,
  "claude-sonnet-5-5": claudeNewTokenizer,
  "claude-haiku-5-5": claudeNewTokenizer,
  "claude-sonnet-5": claudeNewTokenizer,
  "claude-opus-4-6": claude46,
  "claude-sonnet-4-6": claude46,
  "claude-opus-4-5": claude45,
  "claude-sonnet-4-5": claude45,
  "claude-haiku-4-5": claude45
}

/**
 * An unknown Claude id is most likely newer than this table: assume the newer tokenizer and
 * adaptive thinking, but only the 200K window every current Claude model has at least.
 */
const unknownClaude: ModelProfile = { ...claudeNewTokenizer, contextWindow: 200_000, maxOutputTokens: 32_000 }

/** `claude-haiku-4-5-20251001` -> `claude-haiku-4-5`. */
const withoutDate = (id: string) => id.replace(/-\d{8}$/, "")

export const anthropicProfile = (id: string): ModelProfile => anthropicModels[withoutDate(id)] ?? unknownClaude

const text: ModelCapabilities = { streaming: true, toolCalls: true, thinking: false, images: false }
const reasoning: ModelCapabilities = { ...text, thinking: true }

/** OpenAI model families by id prefix; the longest matching prefix wins. */
const openaiFamilies: ReadonlyArray<readonly [string, ModelProfile]> = [
  ["gpt-4o", { contextWindow: 128_000, maxOutputTokens: 16_384, capabilities: text, thinking: "none", charsPerToken: 3 }],
  ["gpt-4.1", { contextWindow: 1_047_576, maxOutputTokens: 32_768, capabilities: text, thinking: "none", charsPerToken: 3 }],
  ["o3", { contextWindow: 200_000, maxOutputTokens: 100_000, capabilities: reasoning, thinking: "none", charsPerToken: 3 }],
  ["o4-mini", { contextWindow: 200_000, maxOutputTokens: 100_000, capabilities: reasoning, thinking: "none", charsPerToken: 3 }],
  ["gpt-5", { contextWindow: 400_000, maxOutputTokens: 128_000, capabilities: reasoning, thinking: "none", charsPerToken: 3 }]
]

/**
 * Local servers (Ollama, llama.cpp, vLLM) run models with whatever window they were started
 * with, often far below the model's nominal one: assume a modest 32K unless told otherwise.
 */
const unknownOpenAICompatible: ModelProfile = {
  contextWindow: 32_768,
  maxOutputTokens: 8_192,
  capabilities: reasoning,
  thinking: "none",
  charsPerToken: 3
}

export const openaiProfile = (id: string): ModelProfile => {
  let best: readonly [string, ModelProfile] | undefined
  for (const family of openaiFamilies) {
    if (id.startsWith(family[0]) && (best === undefined || family[0].length > best[0].length)) best = family
  }
  return best?.[1] ?? unknownOpenAICompatible
}
