import * as Effect from "effect/Effect"
import { homedir } from "node:os"
import { isAbsolute, join, resolve } from "node:path"
import { isWithin, realLocation } from "./tools/workspace-paths.js"

/**
 * The places the agent reads only when a person names them: its own configuration and data
 * directories (every project's transcripts, the trust store, remembered answers), the stores
 * where people keep credentials, and what the user's own settings hide. One list, so the
 * sandbox (which shows them empty), the permission engine (which asks a person, firmly, for
 * any call that touches them), the walking tools (which leave them out) and the loaders of a
 * project's instructions (which refuse a file there) cannot disagree.
 */

/** Where people keep credentials: `~` is the home directory. */
export const SECRET_STORES: ReadonlyArray<string> = ["~/.ssh", "~/.aws", "~/.gnupg", "~/.netrc", "~/.config/gcloud", "~/.docker", "~/.kube"]

export interface PrivatePlace {
  /** Absolute, `~` expanded, as named: judged at its real location too (see `resolvePlaces`). */
  readonly path: string
  /** What it is, for a person: `the agent's data directory`, `the credential store ~/.ssh`. */
  readonly what: string
}

/**
 * The private places as they are at the moment of use: what the user's settings hide may change
 * while the agent runs, so a long-running process asks each time (user-private-places.ts reads
 * the settings again only when they changed).
 */
export type PlacesNow = Effect.Effect<ReadonlyArray<PrivatePlace>>

/** A list that does not change (tests, a listing): as PlacesNow. */
export const fixedPlaces = (places: ReadonlyArray<PrivatePlace>): PlacesNow => Effect.succeed(places)

export interface PrivatePlacesOptions {
  readonly home: string | undefined
  readonly configDir?: string
  readonly dataDir?: string
  /** The user's own `sandbox.hide` and `sandbox.reveal` (a project's settings never reach here). */
  readonly hide?: ReadonlyArray<string>
  readonly reveal?: ReadonlyArray<string>
}

/** The home directory as commands see it: `HOME`, else the account's. */
export const currentHome = (env: NodeJS.ProcessEnv = process.env): string => env["HOME"] ?? homedir()

const expand = (path: string, home: string | undefined): string | undefined => {
  if (path === "~" || path.startsWith("~/")) return home === undefined ? undefined : join(home, path.slice(1))
  return isAbsolute(path) ? resolve(path) : undefined
}

/**
 * The private places: the configuration and data directories always, then the secret stores
 * and what the user hides, less what the user reveals. A name that cannot be placed (`~` with
 * no home, a relative path) is left out: it names nowhere.
 */
export const privatePlaces = (options: PrivatePlacesOptions): ReadonlyArray<PrivatePlace> => {
  const revealed = new Set((options.reveal ?? []).flatMap((name) => expand(name, options.home) ?? []))
  const named = (names: ReadonlyArray<string>, what: (name: string) => string): Array<PrivatePlace> =>
    names.flatMap((name) => {
      const path = expand(name, options.home)
      return path === undefined || revealed.has(path) ? [] : [{ path, what: what(name) }]
    })
  return [
    ...(options.configDir === undefined ? [] : [{ path: resolve(options.configDir), what: "the agent's configuration directory" }]),
    ...(options.dataDir === undefined ? [] : [{ path: resolve(options.dataDir), what: "the agent's data directory" }]),
    ...named(SECRET_STORES, (name) => `the credential store ${name}`),
    ...named(options.hide ?? [], (name) => `${name}, which the user's settings hide`)
  ]
}

/** A private place with every name it has: as named and where the kernel resolves it. */
export interface ResolvedPlace {
  readonly names: ReadonlyArray<string>
  readonly what: string
}

/**
 * Each place at its real location as well as its name, resolved now (a place may have been
 * created or relinked since start-up): a link to `~/.ssh` from elsewhere lands on the real one.
 */
export const resolvePlaces = (places: ReadonlyArray<PrivatePlace>): ReadonlyArray<ResolvedPlace> =>
  places.map((place) => {
    const real = realLocation(place.path)
    return { names: real === place.path ? [place.path] : [place.path, real], what: place.what }
  })

/** The place `real` lies in (itself or below), if any. */
export const placeHolding = (places: ReadonlyArray<ResolvedPlace>, real: string): ResolvedPlace | undefined =>
  places.find((place) => place.names.some((name) => isWithin(name, real)))

/**
 * The places that hold none of `roots` (one root's names: as given, and real): a root inside a
 * private place was named by a person (a call there always asks one), so what lies below it is
 * what they allowed.
 */
export const placesOutside = (places: ReadonlyArray<ResolvedPlace>, roots: ReadonlyArray<string>): ReadonlyArray<ResolvedPlace> =>
  places.filter((place) => !roots.some((root) => placeHolding([place], root) !== undefined))
