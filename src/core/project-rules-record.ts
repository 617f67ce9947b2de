import * as Effect from "effect/Effect"
import type { PermissionEngineShape } from "../services/PermissionEngine.js"
import type { Draft } from "./session-actor.js"
import type { SessionState } from "./session-state.js"

export const projectRulesKey = (file: string) => `permission.project_rules:${file}`
export const projectRulesValue = (sha256: string, trusted: boolean) => `${sha256}:${trusted ? "trusted" : "untrusted"}`

/**
 * The project's rules file as this turn finds it, when its content or trust differs from what
 * the session last recorded: the audit shows which project rules were in force, and who trusted them.
 */
export const projectRulesDrafts = (
  permissions: PermissionEngineShape,
  state: SessionState,
  workspaceRoot: string,
  turnId: string
): Effect.Effect<ReadonlyArray<Draft>> =>
  permissions.projectTrust(workspaceRoot).pipe(
    Effect.map((status): ReadonlyArray<Draft> => {
      if (status.sha256 === undefined) return []
      if (state.recordedSources.get(projectRulesKey(status.file)) === projectRulesValue(status.sha256, status.trusted)) return []
      return [
        {
          type: "permission.project_rules",
          turnId,
          payload: {
            file: status.file,
            sha256: status.sha256,
            allowRules: status.allowRules.length,
            opensNetwork: status.opensNetwork,
            trusted: status.trusted,
            ...(status.trustedAt === undefined ? {} : { trustedAt: status.trustedAt }),
            ...(status.trustedBy === undefined ? {} : { trustedBy: status.trustedBy }),
            ...(status.hooks === undefined ? {} : { hooks: status.hooks.length })
          }
        }
      ]
    }),
    // A malformed file is reported at each decision (they fail closed); here it is only not recorded.
    Effect.catchAll((error) => Effect.logWarning("could not read the project's rules for the audit", error.message).pipe(Effect.as([])))
  )
