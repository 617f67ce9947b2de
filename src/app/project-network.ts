import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { projectNetworkSetting } from "../layers/sandbox/settings.js"
import type { PermissionEngineShape } from "../services/PermissionEngine.js"

/**
 * The project's say on the sandbox's network, under project trust: closing it always counts,
 * opening it only once a person trusted the project's configuration as it is now (the same
 * trust, and hash, as its allow rules). Untrusted, the user's setting decides.
 */
export const trustedProjectNetwork = (permissions: PermissionEngineShape) => (workspaceRoot: string) =>
  Effect.flatMap(projectNetworkSetting(workspaceRoot), (setting) => {
    if (Option.isNone(setting) || !setting.value) return Effect.succeed(setting)
    return permissions.projectTrust(workspaceRoot).pipe(
      Effect.map((trust) => (trust.trusted ? setting : Option.none<boolean>())),
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning(`the project's network setting is ignored: ${error.message}`), Option.none<boolean>())
      )
    )
  })
