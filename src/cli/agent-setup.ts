import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { chooseModel, type ModelChoice } from "../app/model-choice.js"
import type { ModelSelection } from "../app/model.js"
import type { SandboxConfig } from "../app/tools.js"
import { resolveConfigDir, resolveDataDir, type StoreKind } from "../app/locations.js"
import { packageVersion } from "../app/package-root.js"
import { userSettingsFile } from "../layers/sandbox/settings.js"
import { stderr } from "./io.js"

/** The options every command that runs the agent shares (see `options.ts`). */
export interface AgentArgs {
  readonly dataDir: Option.Option<string>
  readonly store: StoreKind
  /** `--model`; none: the default (settings.json, the environment). */
  readonly model: Option.Option<string>
  readonly script: Option.Option<string>
  readonly maxOutputTokens: Option.Option<number>
  readonly thinkingBudget: Option.Option<number>
  /** `--sandbox`; absent for commands that run no tools: `auto`. */
  readonly sandbox?: SandboxConfig["mode"]
  readonly sandboxNetwork?: boolean
}

/**
 * Where the agent keeps its data, which store and model it uses: the part of its configuration
 * the command line sets, with the model new sessions get when it names none (`chooseModel`).
 */
export const agentSetup = (args: AgentArgs) =>
  Effect.map(modelChoice(args), (choice) => ({
    config: {
      dataDir: resolveDataDir(Option.getOrUndefined(args.dataDir)),
      configDir: resolveConfigDir(),
      version: packageVersion(),
      store: args.store,
      model: modelSelection(args, choice.spec),
      sandbox: { mode: args.sandbox ?? "auto", network: args.sandboxNetwork ?? false }
    },
    choice
  }))

const modelChoice = (args: AgentArgs) =>
  chooseModel({ flag: args.model, script: Option.isSome(args.script), settingsFile: userSettingsFile(resolveConfigDir()) })

const modelSelection = (args: AgentArgs, spec: string): ModelSelection => ({
  spec,
  ...(Option.isSome(args.script) ? { scriptPath: args.script.value } : {}),
  ...(Option.isSome(args.maxOutputTokens) ? { maxOutputTokens: args.maxOutputTokens.value } : {}),
  ...(Option.isSome(args.thinkingBudget) ? { thinkingBudget: args.thinkingBudget.value } : {})
})

/**
 * For a long-running agent (`serve`, `acp`): one line on stderr when its new sessions get the
 * scripted echo model though nobody chose it, saying why.
 */
export const noteEchoDefault = (choice: ModelChoice) =>
  choice.chosen || choice.spec !== "scripted"
    ? Effect.void
    : stderr(`new sessions get the scripted echo model: ${choice.reason} (pass --model, or set "model" in settings.json)\n`)
