/** The Anthropic adapter (loads @anthropic-ai/sdk): `import * as Anthropic from "custom-agent/anthropic"`. */
export * from "./layers/model/anthropic.js"
