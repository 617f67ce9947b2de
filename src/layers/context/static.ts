import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ContextBuilder } from "../../services/ContextBuilder.js"
import { defaultSystemPrompt } from "./system-prompt.js"

/** A context of system instructions only: for tests and for embedders that bring nothing else. */
export const layer = (systemPrompt: string = defaultSystemPrompt) =>
  Layer.succeed(ContextBuilder, { sources: () => Effect.succeed([{ kind: "system", id: "built-in", text: systemPrompt }]) })

/** The short built-in instructions alone: what an engine wired without a context of its own sends. */
export const builtInContext: Layer.Layer<ContextBuilder> = layer(
  "You are a coding agent working in the user's workspace. Use the tools you are given, check your work, and answer concisely."
)
