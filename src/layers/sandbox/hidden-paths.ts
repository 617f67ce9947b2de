import * as Effect from "effect/Effect"
import { realpath, stat } from "node:fs/promises"
import { privatePlaces } from "../private-places.js"
import type { UserSandboxSettings } from "./settings.js"

/** A host path a sandboxed command sees as empty: a directory as an empty tmpfs, anything else as /dev/null. */
export interface HiddenPath {
  readonly path: string
  readonly kind: "directory" | "file"
}

/** Where the kernel will find `path`, and what it is; undefined when nothing is there. */
const found = (path: string): Effect.Effect<HiddenPath | undefined> =>
  Effect.promise(async () => {
    try {
      const real = await realpath(path)
      return { path: real, kind: (await stat(real)).isDirectory() ? ("directory" as const) : ("file" as const) }
    } catch {
      // Missing (or unreadable to us): nothing there to show, and the read-only root lets no command create it.
      return undefined
    }
  })

/**
 * The paths to hide: the private places (the agent's configuration and data directories, the
 * secret stores, what the user's settings add, less what they reveal), from the one list the
 * permission engine and the file tools judge by too. Judged where the kernel resolves them.
 */
export const hiddenPaths = (options: {
  readonly home: string | undefined
  readonly configDir: string
  readonly dataDir: string
  readonly settings: UserSandboxSettings
}): Effect.Effect<ReadonlyArray<HiddenPath>> =>
  Effect.gen(function* () {
    const places = privatePlaces({ ...options, hide: options.settings.hide, reveal: options.settings.reveal })
    const all = yield* Effect.forEach(places, (place) => found(place.path))
    const unique = new Map<string, HiddenPath>()
    for (const entry of all) if (entry !== undefined) unique.set(entry.path, entry)
    return [...unique.values()]
  })
