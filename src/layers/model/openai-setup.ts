import type { ModelInfo } from "../../domain/model.js"
import { openaiProfile } from "./model-catalog.js"
import type { OpenAIConfig } from "./openai-config.js"
import type { OpenAIWireApi } from "./openai-select.js"
import { resolveRetryPolicy } from "./retry.js"

/**
 * What both OpenAI adapters derive from their configuration the same way: the model's profile,
 * the output tokens each request reserves, the retry policy, the gateway's info (naming which
 * API it speaks) and the endpoint (`path` after the base URL).
 */
export const openaiSetup = (config: OpenAIConfig, api: OpenAIWireApi, path: string) => {
  const profile = openaiProfile(config.model)
  const reserved = config.maxOutputTokens ?? profile.maxOutputTokens
  const info: ModelInfo = {
    id: config.id ?? `openai/${config.model}`,
    provider: "openai",
    api,
    contextWindow: config.contextWindow ?? profile.contextWindow,
    maxOutputTokens: reserved,
    capabilities: profile.capabilities
  }
  return { profile, reserved, policy: resolveRetryPolicy(config.retry), info, endpoint: `${config.baseUrl.replace(/\/+$/, "")}/${path}` }
}
