/** The OpenAI-compatible adapter (Chat Completions over HTTP): `import * as OpenAI from "custom-agent/openai"`. */
export * from "./layers/model/openai-compatible.js"
