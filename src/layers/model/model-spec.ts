import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/**
 * What `--model` selected. Parsing is all this module does, so the CLI can load it without
 * loading any provider SDK: the adapter itself is imported only once it is chosen.
 */
export type ModelSelection =
  | { readonly _tag: "Scripted" }
  | { readonly _tag: "Anthropic"; readonly model: string }
  | { readonly _tag: "OpenAI"; readonly model: string }
  /** Chat Completions whatever the base URL: a compatible server, or OpenAI asked that way. */
  | { readonly _tag: "OpenAICompatible"; readonly model: string }

/**
 * The default Claude model for `--model anthropic`: Sonnet 5.5, the current Sonnet (fast,
 * 1M-token window, adaptive thinking), the usual pick for coding agents.
 */
export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5"

export class ModelSpecError extends Schema.TaggedError<ModelSpecError>()("ModelSpecError", {
  spec: Schema.String,
  message: Schema.String
}) {}

const usage = "use scripted, anthropic, anthropic/<model-id>, openai/<model-id> or openai-compatible/<model-id>"

/**
 * `scripted`, `anthropic` (the default Claude model), `anthropic/<id>`, `openai/<id>`,
 * `openai-compatible/<id>`. The id is everything after the first slash, so
 * `openai/meta-llama/Llama-3.1-8B` keeps its own.
 */
export const parseModelSpec = (spec: string): Either.Either<ModelSelection, ModelSpecError> => {
  const trimmed = spec.trim()
  const fail = (message: string) => Either.left(new ModelSpecError({ spec, message }))
  if (trimmed === "scripted") return Either.right({ _tag: "Scripted" })
  if (trimmed === "anthropic") return Either.right({ _tag: "Anthropic", model: DEFAULT_ANTHROPIC_MODEL })
  if (trimmed === "openai") {
    return fail(`--model openai needs a model id, e.g. openai/gpt-4.1, or openai/llama3.1 for a local Ollama`)
  }
  const slash = trimmed.indexOf("/")
  const provider = slash === -1 ? trimmed : trimmed.slice(0, slash)
  const model = slash === -1 ? "" : trimmed.slice(slash + 1).trim()
  if (provider !== "anthropic" && provider !== "openai" && provider !== "openai-compatible") {
    return fail(`unknown model "${spec}": ${usage}`)
  }
  if (model === "") return fail(`--model ${provider}/ needs a model id after the slash: ${usage}`)
  if (/\s/.test(model)) return fail(`model id "${model}" has whitespace in it`)
  switch (provider) {
    case "anthropic":
      return Either.right({ _tag: "Anthropic", model })
    case "openai":
      return Either.right({ _tag: "OpenAI", model })
    case "openai-compatible":
      return Either.right({ _tag: "OpenAICompatible", model })
  }
}

/** The id a selection is shown and recorded under (`ModelInfo.id`). */
export const selectionId = (selection: ModelSelection): string => {
  switch (selection._tag) {
    case "Scripted":
      return "scripted"
    case "Anthropic":
      return `anthropic/${selection.model}`
    case "OpenAI":
      return `openai/${selection.model}`
    case "OpenAICompatible":
      return `openai-compatible/${selection.model}`
  }
}

/** Claude Code's model aliases in agent definitions, pointed at the current model of each family. */
const claudeAliases: Readonly<Record<string, string>> = {
  sonnet: "claude-sonnet-5-5",
  opus: "claude-opus-5-5",
  haiku: "claude-haiku-5-5"
}

/**
 * The model an agent definition names, as the id a gateway for it reports (`anthropic/<id>`,
 * `openai/<id>`, `scripted`); `None` for `inherit`, its parent's. Besides our specs it takes
 * what Claude Code's definitions say: `sonnet`, `opus`, `haiku` and bare `claude-…` ids.
 */
export const definitionModel = (name: string): Either.Either<Option.Option<string>, string> => {
  const trimmed = name.trim()
  if (trimmed === "inherit") return Either.right(Option.none())
  const alias = claudeAliases[trimmed]
  if (alias !== undefined) return Either.right(Option.some(`anthropic/${alias}`))
  if (/^claude-[^\s/]+$/.test(trimmed)) return Either.right(Option.some(`anthropic/${trimmed}`))
  return Either.match(parseModelSpec(trimmed), {
    onLeft: () =>
      Either.left(
        `"model" must be inherit, sonnet, opus, haiku, a Claude model id (claude-…) or a --model spec (anthropic/<id>, openai/<id>, openai-compatible/<id>, scripted), not "${trimmed}"`
      ),
    onRight: (selection) => Either.right(Option.some(selectionId(selection)))
  })
}
