import { Command } from "@effect/cli"
import { Effect, Option } from "effect"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { packageVersion } from "../../app/package-root.js"
import * as shared from "../options.js"

/** The protocol code and its SDK load only when this command runs, keeping the other commands' start-up short. */
export const acpCommand = Command.make(
  "acp",
  {
    model: shared.model,
    script: shared.script,
    maxOutputTokens: shared.maxOutputTokens,
    thinkingBudget: shared.thinkingBudget,
    dataDir: shared.dataDir,
    store: shared.store
  },
  (args) =>
    Effect.gen(function* () {
      const acp = yield* Effect.promise(() => import("../../acp/run.js"))
      return yield* acp.runAcp({
        dataDir: resolveDataDir(Option.getOrUndefined(args.dataDir)),
        configDir: resolveConfigDir(),
        version: packageVersion(),
        store: args.store,
        model: {
          spec: args.model,
          ...(Option.isSome(args.script) ? { scriptPath: args.script.value } : {}),
          ...(Option.isSome(args.maxOutputTokens) ? { maxOutputTokens: args.maxOutputTokens.value } : {}),
          ...(Option.isSome(args.thinkingBudget) ? { thinkingBudget: args.thinkingBudget.value } : {})
        }
      })
    })
).pipe(Command.withDescription("Run as an Agent Client Protocol agent on stdin/stdout, for Zed and other editors"))
