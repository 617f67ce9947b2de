import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { readFile } from "node:fs/promises"
import { messageOf } from "../domain/cause-message.js"
import type { ModelConfigError } from "../layers/model/model-config.js"
import { type ModelSpecError, parseModelSpec } from "../layers/model/model-spec.js"
import * as Scripted from "../layers/model/scripted.js"
import type { ModelGateway } from "../services/ModelGateway.js"

export interface ModelSelection {
  /** `scripted` (default), `anthropic[/<id>]` or `openai/<id>`. */
  readonly spec: string
  /** A script for the scripted model. */
  readonly scriptPath?: string
  /** Output token limit per request (real models). */
  readonly maxOutputTokens?: number
  /** Extended thinking budget (Anthropic); off when unset. */
  readonly thinkingBudget?: number
}

export const loadScript = (path: string): Effect.Effect<Scripted.Script, Scripted.ScriptError> =>
  Effect.tryPromise({
    try: () => readFile(path, "utf8"),
    catch: (error) =>
      new Scripted.ScriptError({ message: `cannot read script ${path}: ${messageOf(error)}` })
  }).pipe(Effect.flatMap((text) => Scripted.parseScript(text, path)))

/** What choosing and building the model can fail with: a bad spec, an unreadable script, missing settings (a key). */
export type ModelLayerError = ModelSpecError | Scripted.ScriptError | ModelConfigError

/**
 * The composition root's only branch on the provider: it picks the ModelGateway layer. A
 * provider's adapter (and its SDK) is imported only when selected.
 */
export const modelLayer = (selection: ModelSelection): Layer.Layer<ModelGateway, ModelLayerError> =>
  Layer.unwrapEffect(
    Effect.gen(function* (): Effect.fn.Return<Layer.Layer<ModelGateway, ModelLayerError>, ModelLayerError> {
      const parsed = yield* parseModelSpec(selection.spec)
      const limits = {
        ...(selection.maxOutputTokens === undefined ? {} : { maxOutputTokens: selection.maxOutputTokens })
      }
      switch (parsed._tag) {
        case "Scripted": {
          const script = selection.scriptPath === undefined ? undefined : yield* loadScript(selection.scriptPath)
          return Scripted.layer(script)
        }
        case "Anthropic": {
          const anthropic = yield* Effect.promise(() => import("../layers/model/anthropic.js"))
          return anthropic.layerFromEnv({
            model: parsed.model,
            ...limits,
            ...(selection.thinkingBudget === undefined ? {} : { thinkingBudget: selection.thinkingBudget })
          })
        }
        case "OpenAI": {
          const openai = yield* Effect.promise(() => import("../layers/model/openai-compatible.js"))
          return openai.layerFromEnv({ model: parsed.model, ...limits })
        }
      }
    })
  )
