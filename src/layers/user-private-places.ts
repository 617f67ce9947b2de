import * as Effect from "effect/Effect"
import { currentHome, type PrivatePlace, privatePlaces } from "./private-places.js"
import { readUserSandboxSettings, userSettingsFile } from "./sandbox/settings.js"

/**
 * The private places of this agent (private-places.ts), with the user's own `sandbox.hide` and
 * `sandbox.reveal`. Settings that cannot be used are said once and the defaults kept, as the
 * sandbox does with the same file, so both still agree.
 */
export const readPrivatePlaces = (options: { readonly configDir: string; readonly dataDir: string }): Effect.Effect<ReadonlyArray<PrivatePlace>> =>
  readUserSandboxSettings(userSettingsFile(options.configDir)).pipe(
    Effect.catchAll((error) =>
      Effect.as(Effect.logWarning(`hidden paths in settings ignored for file tools (defaults kept): ${error.message}`), { hide: [], reveal: [] })
    ),
    Effect.map((settings) => privatePlaces({ home: currentHome(), ...options, hide: settings.hide, reveal: settings.reveal }))
  )
