import { placeHolding, placesOutside, type PrivatePlace, resolvePlaces, type ResolvedPlace } from "../private-places.js"
import { isWithin, realLocation } from "./workspace-paths.js"

/**
 * What a walk (`grep`, `list_files`) may take in. The permission engine judges the call once,
 * for its root; the walk then meets entries a direct call of the same kind would be refused,
 * or asked a person about, however the root was allowed: a private place (the agent's own
 * directories, a credential store, what the user hides) below the root, or a link leading
 * into one or out of the root. Those are left out, whole subtrees at once, and counted.
 */
export interface WalkBounds {
  /** The root's real location, as judged: every link must lead inside it. */
  readonly root: string
  /** The root as the call names it, for the note. */
  readonly rootDisplay: string
  /** The private places the walk leaves out: all but those holding the root (a person named those). */
  readonly places: ReadonlyArray<ResolvedPlace>
}

export const walkBounds = (places: ReadonlyArray<PrivatePlace>, root: { readonly absolute: string; readonly real: string; readonly display: string }): WalkBounds => ({
  root: root.real,
  rootDisplay: root.display === "." ? "the workspace" : root.display,
  places: placesOutside(resolvePlaces(places), [root.absolute, root.real])
})

/** The places at or below `realDir`: only they can hold an entry under it, so a subtree with none is judged no further. */
export const placesBelow = (places: ReadonlyArray<ResolvedPlace>, realDir: string): ReadonlyArray<ResolvedPlace> =>
  places.filter((place) => place.names.some((name) => isWithin(realDir, name)))

/** Why an entry that is no link (at its real location `real`) is left out: the private place it is, or lies in. */
export const refusedEntry = (below: ReadonlyArray<ResolvedPlace>, real: string): string | undefined =>
  below.length === 0 ? undefined : placeHolding(below, real)?.what

/**
 * Why a link (at its real location `link`) is left out, judged where it leads, every hop
 * followed (a dangling one too): into a private place, or out of the root the call was judged on.
 */
export const refusedLink = (bounds: WalkBounds, link: string): string | undefined => {
  const target = realLocation(link)
  const place = placeHolding(bounds.places, target)
  if (place !== undefined) return `a link into ${place.what}`
  return isWithin(bounds.root, target) ? undefined : `a link leading outside ${bounds.rootDisplay}`
}

/** Why an entry was skipped because it changed while the walk ran. */
export const MOVED_WHILE_WALKED = "an entry that became a link while the walk ran"

/** One line saying how many entries were left out and why, without naming them; none when nothing was. */
export const skippedNote = (skipped: ReadonlyMap<string, number>): string | undefined => {
  if (skipped.size === 0) return undefined
  const total = [...skipped.values()].reduce((sum, count) => sum + count, 0)
  const reasons = [...skipped].map(([why, count]) => `${why} (${count})`).join(", ")
  return `[Skipped ${total} ${total === 1 ? "entry" : "entries"} the agent may not read without a person naming ${total === 1 ? "it" : "them"}: ${reasons}.]`
}
