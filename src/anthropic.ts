/** The Anthropic adapter: `import * as Anthropic from "custom-agent/anthropic"`. */
export * from "./layers/model/anthropic.js"
