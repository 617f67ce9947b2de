import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type ModelConfigError, optionalVariable } from "../layers/model/model-config.js"
import { parseModelSpec } from "../layers/model/model-spec.js"
import { readOptionalJson } from "../layers/optional-json-file.js"

/** The model new sessions get when a command line names none, and how it was arrived at. */
export interface ModelChoice {
  /** A `--model` spec: `scripted`, `anthropic[/<id>]`, `openai/<id>`. */
  readonly spec: string
  /** A person chose it (`--model`, `--script`, `"model"` in settings.json), rather than a default taking it. */
  readonly chosen: boolean
  /** Where it came from, in words: what a notice says when the scripted model answers someone who did not choose it. */
  readonly reason: string
}

export class ModelSettingsError extends Schema.TaggedError<ModelSettingsError>()("ModelSettingsError", {
  file: Schema.String,
  problem: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return `${this.file}: model: ${this.problem}`
  }
}

/** The part of a `settings.json` the default model comes from; other keys belong to others. */
const ModelSettings = Schema.Struct({ model: Schema.optional(Schema.String) })
const decodeModelSettings = Schema.decodeUnknownEither(ModelSettings)

const settingsModel = (file: string): Effect.Effect<Option.Option<string>, ModelSettingsError> =>
  readOptionalJson(file).pipe(
    Effect.mapError(({ problem }) => new ModelSettingsError({ file, problem })),
    Effect.flatMap((json) => {
      if (Option.isNone(json)) return Effect.succeedNone
      const settings = decodeModelSettings(json.value)
      if (Either.isLeft(settings)) return Effect.fail(new ModelSettingsError({ file, problem: ParseResult.TreeFormatter.formatErrorSync(settings.left) }))
      const model = settings.right.model
      if (model === undefined) return Effect.succeedNone
      // A wrong name stops start-up here, naming the file, rather than failing every turn later.
      return Either.match(parseModelSpec(model), {
        onLeft: (error) => Effect.fail(new ModelSettingsError({ file, problem: error.message, cause: error })),
        onRight: () => Effect.succeed(Option.some(model.trim()))
      })
    })
  )

/**
 * The model for new sessions: `--model`; else the scripted model when `--script` gave it a
 * script; else `"model"` in the user's settings.json; else Claude when `ANTHROPIC_API_KEY` is
 * set (a person with a key wants the real model, not the echo); else the scripted model.
 * A session keeps the model it was created with; this only picks a new session's.
 */
export const chooseModel = (input: {
  readonly flag: Option.Option<string>
  readonly script: boolean
  readonly settingsFile: string
}): Effect.Effect<ModelChoice, ModelSettingsError | ModelConfigError> =>
  Effect.gen(function* () {
    if (Option.isSome(input.flag)) return { spec: input.flag.value, chosen: true, reason: "--model" }
    if (input.script) return { spec: "scripted", chosen: true, reason: "--script" }
    const fromSettings = yield* settingsModel(input.settingsFile)
    if (Option.isSome(fromSettings)) return { spec: fromSettings.value, chosen: true, reason: `"model" in ${input.settingsFile}` }
    if (Option.isSome(yield* optionalVariable("ANTHROPIC_API_KEY"))) return { spec: "anthropic", chosen: false, reason: "ANTHROPIC_API_KEY is set" }
    return {
      spec: "scripted",
      chosen: false,
      reason: `no provider key set (ANTHROPIC_API_KEY), no --model and no "model" in ${input.settingsFile}`
    }
  })
