import type { Argv } from "../../services/Sandbox.js"

/**
 * How bubblewrap is started: through a small shell on the host that first closes every
 * descriptor but stdin, stdout and stderr, then (when there is a seccomp filter) opens the
 * filter on SECCOMP_FD for `--seccomp`, then becomes bubblewrap.
 *
 * Why close: whatever started the agent may have left descriptors open without close-on-exec
 * (a shell's `exec 5>>~/.bashrc`, an editor, a terminal multiplexer). Node marks only the low,
 * contiguous ones close-on-exec, libuv closes none in a child, and bubblewrap passes every one
 * it gets to the command, so a sandboxed command could write to a host file through one
 * (`echo x >&50`) that its mounts keep read-only or hidden. Closing them here, for every
 * sandboxed spawn, holds whatever the agent inherited.
 *
 * Why bash: closing a descriptor above 9 needs `{var}>&-`, which dash and POSIX sh lack. It is
 * started with `-p`, so nothing from the environment (`BASH_ENV`, exported functions,
 * `SHELLOPTS`) runs on the host before bubblewrap: the environment may be a stdio MCP server's
 * configured one.
 */

/** The shell that launches bubblewrap; the sandbox is unavailable without it (detect.ts). */
export const LAUNCHER_SHELL = "/bin/bash"

/** The descriptor bubblewrap reads the seccomp filter from; the launcher opens the filter's file on it. */
export const SECCOMP_FD = 9

/**
 * Closes every descriptor `/proc/self/fd` lists but 0, 1 and 2 (the directory's own, closed by
 * then, is a harmless no-op). An entry that is not a number means the listing failed (no /proc):
 * the launcher refuses rather than start bubblewrap with what it could not close.
 */
const CLOSE_INHERITED =
  "for fd in /proc/self/fd/*; do fd=${fd##*/}; case $fd in " +
  "0|1|2) ;; " +
  "''|*[!0-9]*) echo 'sandbox: cannot list /proc/self/fd to close inherited descriptors' >&2; exit 126 ;; " +
  "*) exec {fd}>&- || exit 126 ;; " +
  "esac; done"

/**
 * The argv that runs `bwrap` (its path, arguments and the command) through the launcher. With a
 * filter file, `$0` is that file, opened on SECCOMP_FD after the others are closed.
 */
export const launch = (filterFile: string | undefined, bwrap: Argv): Argv =>
  filterFile === undefined
    ? [LAUNCHER_SHELL, "-p", "-c", `${CLOSE_INHERITED}; exec "$@"`, "sandbox", ...bwrap]
    : [LAUNCHER_SHELL, "-p", "-c", `${CLOSE_INHERITED}; exec ${SECCOMP_FD}<"$0" && exec "$@"`, filterFile, ...bwrap]
