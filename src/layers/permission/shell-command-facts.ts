import type { Word } from "./shell-options.js"

/**
 * What one reading of a simple command means to the permission boundary: whether it runs code
 * the analysis cannot see (a shell given a string, `eval`, `source`, `xargs`), whether it
 * changes the directory later redirections are relative to, and the script it runs from a
 * string, which is analysed too so deny rules see into it.
 */
export interface CommandFacts {
  /** Why the line cannot be judged statically because of this command. */
  readonly unresolved?: string
  /** Shell code this command runs from a string (`bash -c '...'`, `eval '...'`), when static. */
  readonly script?: string
  /** It runs its standard input as shell code (`bash <<EOF`, `sh <<< '...'`). */
  readonly runsInput?: true
  readonly changesDirectory: boolean
}

const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "pdksh", "yash", "ash", "fish", "rbash"])

/** Builtins that change what later commands mean, or run code the line does not show. */
const OPAQUE: Readonly<Record<string, string>> = {
  source: "runs a script in this shell",
  ".": "runs a script in this shell",
  trap: "sets code to run on a signal",
  alias: "defines an alias",
  coproc: "starts a coprocess",
  hash: "changes where commands are found",
  enable: "loads or turns off builtins",
  fc: "re-runs commands from the history",
  bind: "binds keys to commands",
  xargs: "builds commands from its input"
}

/**
 * Builtins that evaluate array subscripts in their arguments as arithmetic, where `$(...)`
 * runs: `test -v 'a[$(id)]'`, `read 'a[$(id)]'`, `printf -v ...`, `unset`, `declare`, `let`.
 */
const EVALUATING = new Set(["test", "[", "printf", "read", "unset", "declare", "typeset", "local", "readonly", "export", "let", "getopts", "wait", "mapfile", "readarray"])

/** Programs that take shell code after `-c` / `--command` (`-c` also in a cluster, `-qc CODE`, or with the code attached, `-cCODE`). */
const COMMAND_OPTION = new Set(["su", "runuser", "script", "flock"])

/** The code given to `-c`, `-qc`, `-cCODE`, `--command CODE`, `--command=CODE` or `--session-command`; `found` false when there is none. */
const commandOption = (args: ReadonlyArray<Word>): { readonly found: boolean; readonly script?: string } => {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]
    if (word === undefined) continue
    if (word === "--") break
    const long = /^--(?:session-)?command(=.*)?$/s.exec(word)
    const value = long !== null ? (long[1] === undefined ? args[i + 1] : long[1].slice(1)) : /^-[A-Za-z]*c/.test(word) ? word.slice(word.indexOf("c") + 1) || args[i + 1] : null
    if (value === null) continue
    return value === undefined ? { found: true } : { found: true, script: value }
  }
  return { found: false }
}

/** `sg [-] GROUP [-c] CODE` runs CODE with /bin/sh. */
const sgScript = (args: ReadonlyArray<Word>): Word => {
  const rest = args[0] === "-" ? args.slice(2) : args.slice(1)
  return rest[0] === "-c" ? rest[1] : rest[0]
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

export const runsSubstitution = (value: string) => value.includes("$(") || value.includes("`")

const staticScript = (words: ReadonlyArray<Word>): string | undefined =>
  words.every((w): w is string => w !== undefined) ? words.join(" ") : undefined

/** A shell's arguments: `-c` makes the first operand code; no operand means code from stdin. */
const shellFacts = (name: string, args: ReadonlyArray<Word>): CommandFacts => {
  let code = false
  let stdin = false
  for (let i = 0; i < args.length; i++) {
    const word = args[i]
    if (word === undefined) return { unresolved: `${name}'s arguments are only known at run time`, changesDirectory: false }
    if (word === "--" || word === "-") {
      i++
      return operand(name, args[i], code, stdin)
    }
    if (word.startsWith("--")) {
      if (word === "--command") code = true
      else if (word === "--rcfile" || word === "--init-file") i++
      continue
    }
    if (word.startsWith("-") || word.startsWith("+")) {
      if (word.includes("c")) code = true
      if (word.includes("s")) stdin = true
      if (word.includes("o") || word.includes("O")) i++
      continue
    }
    return operand(name, word, code, stdin)
  }
  return operand(name, undefined, code, stdin)
}

const operand = (name: string, first: Word, code: boolean, stdin: boolean): CommandFacts => {
  if (code) {
    return first === undefined
      ? { unresolved: `${name} -c runs code that is not known statically`, changesDirectory: false }
      : { unresolved: `${name} -c runs a string as shell code`, script: first, changesDirectory: false }
  }
  // `/dev/stdin`, `/dev/fd/0`, `/proc/self/fd/0`: the code comes from the input after all.
  if (stdin || first === undefined || first.startsWith("/dev/") || first.startsWith("/proc/")) {
    return { unresolved: `${name} reads shell code from its input`, runsInput: true, changesDirectory: false }
  }
  // `bash script.sh` runs a file, like `./script.sh`: a command a rule can name.
  return { changesDirectory: false }
}

const NONE: CommandFacts = { changesDirectory: false }

/** The string of `env -S STR`, `-SSTR`, `--split-string STR` or `--split-string=STR`; `script` absent when not static. */
const envSplitString = (args: ReadonlyArray<Word>): { readonly script?: string } | undefined => {
  for (let i = 0; i < args.length; i++) {
    const word = args[i]
    if (word === undefined) continue
    const value = word === "-S" || word === "--split-string" ? args[i + 1] : word.startsWith("--split-string=") ? word.slice(15) : /^-[^-]*S/.test(word) ? word.slice(word.indexOf("S") + 1) || args[i + 1] : null
    if (value === null) continue
    return value === undefined ? {} : { script: value }
  }
  return undefined
}

export const commandFacts = (reading: ReadonlyArray<Word>): CommandFacts => {
  const [name, ...args] = reading
  if (name === undefined) return { unresolved: "it runs a command that is only known at run time", changesDirectory: false }
  if (SHELLS.has(name)) return shellFacts(name, args)
  if (name === "eval") {
    const script = staticScript(args)
    return { unresolved: "eval runs its arguments as shell code", ...(script === undefined ? {} : { script }), changesDirectory: false }
  }
  const opaque = OPAQUE[name]
  if (opaque !== undefined) return { unresolved: `${name} ${opaque}`, changesDirectory: false }
  if (name === "exec" && args.every((w) => w?.startsWith("-") === true)) {
    return { unresolved: "exec without a command redirects the shell itself", changesDirectory: false }
  }
  if (name === "env") {
    // `env -S 'rm x'` splits its string into a command: read it as a script so deny rules see it.
    const split = envSplitString(args)
    if (split !== undefined) {
      return { unresolved: "env -S runs a command from a string", ...(split.script === undefined ? {} : { script: split.script }), changesDirectory: false }
    }
  }
  if (name === "env" && args.some((w) => w === undefined || !(w.startsWith("-") || ASSIGNMENT.test(w)))) {
    return { unresolved: "env runs a command in a changed environment", changesDirectory: false }
  }
  if (name === "watch") {
    const commandAt = args.findIndex((w) => w === undefined || !w.startsWith("-"))
    const script = commandAt === -1 ? undefined : staticScript(args.slice(commandAt))
    return { unresolved: "watch runs its arguments through sh -c", ...(script === undefined ? {} : { script }), changesDirectory: false }
  }
  if (COMMAND_OPTION.has(name)) {
    const { found, script } = commandOption(args)
    if (found) return { unresolved: `${name} -c runs a string as shell code`, ...(script === undefined ? {} : { script }), changesDirectory: false }
  }
  if (name === "sg" && args.length > 1) {
    const script = sgScript(args)
    return { unresolved: "sg runs a string as shell code", ...(script === undefined ? {} : { script }), changesDirectory: false }
  }
  if (EVALUATING.has(name) && args.some((w) => w !== undefined && runsSubstitution(w))) {
    return { unresolved: `${name} would evaluate $(...) inside an argument`, changesDirectory: false }
  }
  if (name === "cd" || name === "pushd" || name === "popd") return { changesDirectory: true }
  return NONE
}
