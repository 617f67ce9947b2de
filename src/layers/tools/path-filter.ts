import picomatch from "picomatch"

/** Tests a walked file against a glob; undefined pattern lets everything through. */
export type PathFilter = (fromBase: string, fromRoot: string | undefined) => boolean

/**
 * A glob like `src/**\/*.ts` is matched against the path relative to the directory searched
 * and, when inside the workspace, relative to its root, so either way of writing it works.
 * A pattern without `/` (`*.ts`) matches file names at any depth. Throws on a malformed glob.
 */
export const makePathFilter = (pattern: string | undefined): PathFilter => {
  if (pattern === undefined) return () => true
  // Only for slash-free patterns: picomatch 4 with `basename` fails to match `src/**/*.ts` against `src/a.ts`.
  const matches = picomatch(pattern, { dot: true, basename: !pattern.includes("/") })
  return (fromBase, fromRoot) => matches(fromBase) || (fromRoot !== undefined && matches(fromRoot))
}
