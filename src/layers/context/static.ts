import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ContextBuilder } from "../../services/ContextBuilder.js"
import { defaultSystemPrompt } from "./system-prompt.js"

/** A context of system instructions only: for tests and for embedders that bring nothing else. */
export const layer = (systemPrompt: string = defaultSystemPrompt) =>
  Layer.succeed(ContextBuilder, { sources: () => Effect.succeed([{ kind: "system", id: "built-in", text: systemPrompt }]) })
