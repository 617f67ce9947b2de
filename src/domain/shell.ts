/**
 * A shell command line as the permission boundary sees it, from a real bash grammar: every
 * simple command wherever it stands (lists, pipelines, subshells, substitutions, here-docs),
 * with its words, assignments and redirections. Plain data: no parser types leak out.
 */

/** A redirection. `target` is absolute when the path is known statically, absent otherwise. */
export interface ShellRedirect {
  /** `write` (`>`, `>>`, `&>`, `>|`), `read` (`<`), `dup` (`2>&1`, `>&2`), `input` (here-doc, here-string). */
  readonly kind: "write" | "read" | "dup" | "input"
  readonly text: string
  readonly target?: string
  /** Where `target` really lands: symlinks followed, a part that does not exist judged by its nearest existing parent. */
  readonly real?: string
}

/** One word of a command: its source text, and its value after quote removal when that is known statically. */
export interface ShellWord {
  readonly text: string
  /** Absent when bash only knows it at run time (`$X`, `$(...)`, a glob, a brace expansion, `~user`). */
  readonly value?: string
}

export interface SimpleCommand {
  /** The command's source text, for people and for remembered answers. */
  readonly text: string
  /** The words after quote removal; absent when any word is not static (an expansion, a glob in the command position). */
  readonly argv?: ReadonlyArray<string>
  /** Every word, command name first, static or not: deny rules read these when argv is incomplete. */
  readonly words: ReadonlyArray<ShellWord>
  /** `NAME=value` prefixes, as written. */
  readonly assignments: ReadonlyArray<string>
  /** The assignments after quote removal (`CI=1` for `CI='1'`); absent when any value is only known at run time. */
  readonly staticAssignments?: ReadonlyArray<string>
  readonly redirects: ReadonlyArray<ShellRedirect>
}

export interface ShellAnalysis {
  readonly commands: ReadonlyArray<SimpleCommand>
  /**
   * Why the line is not fully understood (an expansion in the command position, `eval`,
   * `bash -c`, a function definition, an unknown construct, a parse error, ...). Non-empty:
   * no allow rule or remembered answer may match; the call asks unless a deny rule applies.
   */
  readonly unresolved: ReadonlyArray<string>
}
