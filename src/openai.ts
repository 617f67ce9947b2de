/**
 * The OpenAI adapters over HTTP: `import * as OpenAI from "custom-agent/openai"`. At the top,
 * Chat Completions (OpenAI and compatible servers); `OpenAI.Responses`, OpenAI's Responses API,
 * which carries reasoning between steps (the CLI's `openai/<id>` on OpenAI's endpoint).
 */
export * from "./layers/model/openai-compatible.js"
export { isOpenAIEndpoint } from "./layers/model/openai-config.js"
export * as Responses from "./layers/model/openai-responses.js"
