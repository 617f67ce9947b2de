import * as Option from "effect/Option"
import type { ModelSelection } from "../app/model.js"
import type { SandboxConfig } from "../app/tools.js"
import { resolveConfigDir, resolveDataDir, type StoreKind } from "../app/locations.js"
import { packageVersion } from "../app/package-root.js"

/** The options every command that runs the agent shares (see `options.ts`). */
export interface AgentArgs {
  readonly dataDir: Option.Option<string>
  readonly store: StoreKind
  readonly model: string
  readonly script: Option.Option<string>
  readonly maxOutputTokens: Option.Option<number>
  readonly thinkingBudget: Option.Option<number>
  /** `--sandbox`; absent for commands that run no tools: `auto`. */
  readonly sandbox?: SandboxConfig["mode"]
  readonly sandboxNetwork?: boolean
}

/** Where the agent keeps its data, which store and model it uses: the part of its configuration the command line sets. */
export const agentSetup = (args: AgentArgs) => ({
  dataDir: resolveDataDir(Option.getOrUndefined(args.dataDir)),
  configDir: resolveConfigDir(),
  version: packageVersion(),
  store: args.store,
  model: modelSelection(args),
  sandbox: { mode: args.sandbox ?? "auto", network: args.sandboxNetwork ?? false }
})

const modelSelection = (args: AgentArgs): ModelSelection => ({
  spec: args.model,
  ...(Option.isSome(args.script) ? { scriptPath: args.script.value } : {}),
  ...(Option.isSome(args.maxOutputTokens) ? { maxOutputTokens: args.maxOutputTokens.value } : {}),
  ...(Option.isSome(args.thinkingBudget) ? { thinkingBudget: args.thinkingBudget.value } : {})
})
