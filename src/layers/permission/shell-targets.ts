import { dirname, join } from "node:path"
import type { ShellAnalysis } from "../../domain/shell.js"
import { realLocation } from "../tools/workspace-paths.js"

/**
 * Redirection targets that are not files in any sense a rule cares about: the null device and
 * the process's own streams. Writing to them changes nothing.
 */
const SPECIAL_TARGET = /^\/dev\/(null|stdin|stdout|stderr|fd\/\d+)$/

export const isSpecialTarget = (path: string) => SPECIAL_TARGET.test(path)

/**
 * Where `path` (absolute, or relative to `cwd`) really lands, read as the kernel reads it: one
 * component after the other, a link followed before a `..` after it is applied
 * (`src/link/../x` is `x` beside the link's target, not `src/x`). A part that does not exist
 * yet is judged by its nearest existing parent.
 */
export const physicalLocation = (cwd: string, path: string): string => {
  let current = path.startsWith("/") ? "/" : realLocation(cwd)
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue
    current = part === ".." ? dirname(current) : realLocation(join(current, part))
  }
  return current
}

/** The files a line's redirections read or write, where they really land: the paths a shell call touches. */
export const redirectPaths = (analysis: ShellAnalysis): ReadonlyArray<string> => {
  const paths = new Set<string>()
  for (const command of analysis.commands) {
    for (const redirect of command.redirects) {
      const path = redirect.real ?? redirect.target
      if ((redirect.kind === "write" || redirect.kind === "read") && path !== undefined && !isSpecialTarget(path)) paths.add(path)
    }
  }
  return [...paths]
}
