import * as Effect from "effect/Effect"
import { readWhenChanged } from "./changed-file.js"
import { currentHome, type PlacesNow, privatePlaces } from "./private-places.js"
import { readUserSandboxSettings, userSettingsFile } from "./sandbox/settings.js"

/**
 * The private places of this agent (private-places.ts), with the user's own `sandbox.hide` and
 * `sandbox.reveal`, as the settings file is at each use (read again when it changed: a place
 * the user hides while a host runs holds at its next call). Settings that cannot be used are
 * said once per change and the defaults kept, as the sandbox does with the same file, so both
 * still agree.
 */
export const watchPrivatePlaces = (options: { readonly configDir: string; readonly dataDir: string }): Effect.Effect<PlacesNow> => {
  const file = userSettingsFile(options.configDir)
  return readWhenChanged(
    file,
    readUserSandboxSettings(file).pipe(
      Effect.catchAll((error) =>
        Effect.as(Effect.logWarning(`hidden paths in settings ignored for file tools (defaults kept): ${error.message}`), { hide: [], reveal: [] })
      ),
      Effect.map((settings) => privatePlaces({ home: currentHome(), ...options, hide: settings.hide, reveal: settings.reveal }))
    )
  )
}
