import { compileGlob } from "../patterns/glob.js"

/** Tests a walked file against a glob; undefined pattern lets everything through. */
export type PathFilter = (fromBase: string, fromRoot: string | undefined) => boolean

/**
 * A glob like `src/**\/*.ts` is matched against the path relative to the directory searched
 * and, when inside the workspace, relative to its root, so either way of writing it works.
 * A pattern without `/` (`*.ts`) matches file names at any depth. Throws on a glob that
 * cannot be used, naming why.
 */
export const makePathFilter = (pattern: string | undefined): PathFilter => {
  if (pattern === undefined) return () => true
  const matches = compileGlob(pattern)
  if (pattern.includes("/")) return (fromBase, fromRoot) => matches(fromBase) || (fromRoot !== undefined && matches(fromRoot))
  return (fromBase) => matches(fromBase.slice(fromBase.lastIndexOf("/") + 1))
}
