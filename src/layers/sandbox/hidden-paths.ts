import * as Effect from "effect/Effect"
import { realpath, stat } from "node:fs/promises"
import { isAbsolute, join, resolve } from "node:path"
import type { UserSandboxSettings } from "./settings.js"

/**
 * Where people keep credentials: hidden from sandboxed commands by default, since the
 * read-only root would otherwise let any of them read (and, with the network, send) them.
 */
export const SECRET_STORES: ReadonlyArray<string> = ["~/.ssh", "~/.aws", "~/.gnupg", "~/.netrc", "~/.config/gcloud", "~/.docker", "~/.kube"]

/** A host path a sandboxed command sees as empty: a directory as an empty tmpfs, anything else as /dev/null. */
export interface HiddenPath {
  readonly path: string
  readonly kind: "directory" | "file"
}

const expand = (path: string, home: string | undefined): string | undefined => {
  if (path === "~" || path.startsWith("~/")) return home === undefined ? undefined : join(home, path.slice(1))
  return isAbsolute(path) ? resolve(path) : undefined
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
 * The paths to hide: the agent's configuration and data directories (every project's
 * transcripts, the trust store, remembered answers), the secret stores, and what the user's
 * settings add, less what they reveal. Judged where the kernel resolves them.
 */
export const hiddenPaths = (options: {
  readonly home: string | undefined
  readonly configDir: string
  readonly dataDir: string
  readonly settings: UserSandboxSettings
}): Effect.Effect<ReadonlyArray<HiddenPath>> =>
  Effect.gen(function* () {
    const revealed = new Set(options.settings.reveal.flatMap((path) => expand(path, options.home) ?? []))
    const wanted = [...SECRET_STORES, ...options.settings.hide].flatMap((path) => expand(path, options.home) ?? []).filter((path) => !revealed.has(path))
    const all = yield* Effect.forEach([options.configDir, options.dataDir, ...wanted], found)
    const unique = new Map<string, HiddenPath>()
    for (const entry of all) if (entry !== undefined) unique.set(entry.path, entry)
    return [...unique.values()]
  })
