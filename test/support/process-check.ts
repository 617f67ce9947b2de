import { Effect } from "effect"
import * as fs from "node:fs"

/**
 * Whether a process is still running. A zombie counts as gone: it has exited and only waits
 * for a reaper (in a container, PID 1 may never reap orphans).
 */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] !== "Z"
  } catch {
    // No /proc entry: gone between the two checks, or not Linux, where the signal probe must do.
    return fs.existsSync("/proc/self") ? false : true
  }
}

/** The PIDs a test command wrote to `file`, one a line, once it holds `count` of them. */
export const awaitPids = (file: string, count: number): Effect.Effect<ReadonlyArray<number>> =>
  Effect.gen(function* () {
    for (;;) {
      const pids = fs.existsSync(file)
        ? fs.readFileSync(file, "utf8").split("\n").filter((line) => line !== "").map(Number)
        : []
      if (pids.length >= count) return pids
      yield* Effect.sleep("20 millis")
    }
  })
