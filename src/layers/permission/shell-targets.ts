import type { ShellAnalysis } from "../../domain/shell.js"

/**
 * Redirection targets that are not files in any sense a rule cares about: the null device and
 * the process's own streams. Writing to them changes nothing.
 */
const SPECIAL_TARGET = /^\/dev\/(null|stdin|stdout|stderr|fd\/\d+)$/

export const isSpecialTarget = (path: string) => SPECIAL_TARGET.test(path)

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
