import { spawn } from "node:child_process"
import { closeSync, openSync } from "node:fs"

/** A process started to outlive its starter: how it ended, once it has. */
export interface Detached {
  /** Undefined while it runs; its exit code (null after a signal) once it ended. */
  readonly exitCode: () => number | null | undefined
}

/**
 * Starts `command` in a session of its own (closing the terminal does not end it), its output
 * appended to `logFile` (0600), not waited for. The log is opened before the spawn, so a failure
 * to open it is thrown here rather than lost.
 */
export const spawnDetached = (command: string, args: ReadonlyArray<string>, logFile: string): Detached => {
  const fd = openSync(logFile, "a", 0o600)
  try {
    const child = spawn(command, [...args], { detached: true, stdio: ["ignore", fd, fd], env: process.env })
    let code: number | null | undefined
    child.on("exit", (exit) => {
      code = exit
    })
    child.unref()
    return { exitCode: () => code }
  } finally {
    closeSync(fd)
  }
}
