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
