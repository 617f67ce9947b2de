/**
 * `-r ID` / `--resume ID` as Claude Code takes it: the word after `--resume` names the session
 * when it is not a command, an option or the end of the line, and is then passed on as
 * `--session ID` (the option that takes it); a bare `--resume` opens the picker. Only the
 * words before the first command are looked at: a command's own options are its own.
 */
export const resumeIdAsSession = (argv: ReadonlyArray<string>, commands: ReadonlyArray<string>): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? ""
    if (token === "--" || commands.includes(token)) return [...out, ...argv.slice(i)]
    out.push(token)
    if (token !== "-r" && token !== "--resume") continue
    const next = argv[i + 1]
    if (next === undefined || next.startsWith("-") || commands.includes(next)) continue
    out.push("--session", next)
    i++
  }
  return out
}

/** The interactive session's options that take a value (`options.ts`, with the shared ones it takes). */
const valueOptions = new Set(["--session", "--mode", "--model", "--script", "--max-output-tokens", "--thinking-budget", "--data-dir", "--store", "--sandbox", "--server", "--token-file"])
/** Those that take none. */
const flagOptions = new Set(["--continue", "-c", "--resume", "-r", "--no-host", "--sandbox-network"])

/**
 * Whether the words after the program's name open the interactive session: no command, only
 * its own options. The launcher (`bin/custom-agent.js`) draws the session's first frame
 * before the CLI loads only then; a word it does not know (a command, `--help`, a typo) says
 * no, and the CLI decides as always. Loaded by the launcher on its own: it imports nothing.
 */
export const isInteractiveArgv = (argv: ReadonlyArray<string>): boolean => {
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] ?? ""
    const equals = token.indexOf("=")
    if (token.startsWith("--") && equals > 0 && valueOptions.has(token.slice(0, equals))) continue
    if (valueOptions.has(token)) {
      const value = argv[i + 1]
      if (value === undefined || value.startsWith("-")) return false
      i++
      continue
    }
    if (!flagOptions.has(token)) return false
    // `-r ID`: the word after it names a session (resumeIdAsSession).
    const next = argv[i + 1]
    if ((token === "-r" || token === "--resume") && next !== undefined && !next.startsWith("-")) i++
  }
  return true
}
