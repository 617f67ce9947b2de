import * as Effect from "effect/Effect"
import type { ToolContext } from "../../services/ToolRouter.js"
import { probeDisk } from "./disk-probe.js"
import type { WorkspacePath } from "./workspace-paths.js"

/**
 * The file's text as it stands now, through `ctx.files`; null when it does not exist. Fails
 * with a sentence for the model when it is a directory or cannot be read.
 */
export const currentContent = (target: WorkspacePath, ctx: ToolContext): Effect.Effect<string | null, string> =>
  Effect.gen(function* () {
    const probe = yield* probeDisk(target.absolute)
    if (probe.kind === "missing") return null
    if (probe.kind === "directory") return yield* Effect.fail(`${target.display} is a directory, not a file`)
    return yield* ctx.files.readText(target.absolute, target.real).pipe(Effect.mapError((error) => error.message))
  })
