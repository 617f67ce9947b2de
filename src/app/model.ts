import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { readFile } from "node:fs/promises"
import { messageOf } from "../domain/cause-message.js"
import type { ModelConfigError } from "../layers/model/model-config.js"
import { type ModelSpecError, parseModelSpec, selectionId } from "../layers/model/model-spec.js"
import * as Scripted from "../layers/model/scripted.js"
import { loadPrices, priced, type PriceSettingsError } from "../layers/model/priced.js"
import { ModelGateway } from "../services/ModelGateway.js"
import { ModelResolver, ModelUnavailable } from "../services/ModelResolver.js"

export interface ModelSelection {
  /** `scripted` (default), `anthropic[/<id>]`, `openai/<id>` or `openai-compatible/<id>`. */
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
      new Scripted.ScriptError({ message: `cannot read script ${path}: ${messageOf(error)}`, cause: error })
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
          const openai = yield* Effect.promise(() => import("../layers/model/openai-select.js"))
          return openai.layerFromEnv({ model: parsed.model, ...limits })
        }
        case "OpenAICompatible": {
          const compatible = yield* Effect.promise(() => import("../layers/model/openai-compatible.js"))
          return compatible.layerFromEnv({ model: parsed.model, id: selectionId(parsed), ...limits })
        }
      }
    })
  )

/**
 * The engine's model (priced) and a resolver for the other models sessions and agent
 * definitions name, each built like `--model` with the same limits and priced from the same
 * table. Given a script, the scripted model plays every model: a test or demo stays offline
 * whatever its sessions and definitions name. The echo model (no script) plays none: a
 * session created on Claude is answered by Claude, not by the echo.
 */
export const modelsLayer = (
  selection: ModelSelection,
  settingsFile: string
): Layer.Layer<ModelGateway | ModelResolver, ModelLayerError | PriceSettingsError> =>
  Layer.effectContext(
    Effect.gen(function* () {
      const prices = yield* loadPrices(settingsFile)
      const main = priced(yield* ModelGateway, prices)
      const resolve = (model: string) =>
        main.info.provider === "scripted" && selection.scriptPath !== undefined
          ? Effect.succeed(main)
          : Layer.build(modelLayer({ ...selection, spec: model })).pipe(
              Effect.map((built) => priced(Context.get(built, ModelGateway), prices)),
              Effect.mapError((error) => new ModelUnavailable({ model, message: error.message, cause: error }))
            )
      return Context.make(ModelGateway, main).pipe(Context.add(ModelResolver, ModelResolver.of({ resolve })))
    })
  ).pipe(Layer.provide(modelLayer(selection)))
