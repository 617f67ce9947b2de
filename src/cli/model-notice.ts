import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { parseModelSpec, selectionId } from "../layers/model/model-spec.js"

/** The id a `--model` spec is recorded under (`anthropic` is `anthropic/<the default Claude>`), as the session's model. */
export const modelIdOf = (spec: string): string => Either.match(parseModelSpec(spec), { onLeft: () => spec.trim(), onRight: selectionId })

/** How the model of a run's new session was arrived at: chosen by the person, or a default and why. */
export interface DefaultModel {
  readonly chosen: boolean
  readonly reason: string
}

/**
 * The one line saying the scripted echo model answers, for a person who did not ask for it:
 * undefined when they named a model (or a script) for this run, chose the default themselves
 * (settings.json), or another model answers. `model` is the session's (`SessionView.model`).
 */
export const echoNotice = (input: {
  readonly model: string | undefined
  readonly explicit: boolean
  /** The session continued (`--session`); none for a new one. */
  readonly continued: Option.Option<string>
  readonly defaultModel: DefaultModel
}): string | undefined => {
  if (input.explicit || input.model !== "scripted") return undefined
  if (Option.isSome(input.continued)) {
    return `the scripted echo model answers: it is session ${input.continued.value}'s model (run it with --model anthropic, or another, to change it)\n`
  }
  if (input.defaultModel.chosen) return undefined
  return `the scripted echo model answers: ${input.defaultModel.reason} (pass --model, or set "model" in settings.json)\n`
}
