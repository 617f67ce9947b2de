import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { ChildProcess } from "node:child_process"
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import { errnoCode } from "./fs-errors.js"

/** How a command run ended. */
export type CommandOutcome =
  | { readonly _tag: "exited"; readonly exitCode: number | null; readonly signal: string | null }
  | { readonly _tag: "timedOut" }
  | { readonly _tag: "spawnFailed"; readonly message: string }

export interface CommandOptions {
  readonly command: string
  readonly cwd: string
  readonly timeout: Duration.Duration
  /** Called with stdout and stderr chunks, interleaved as they arrive; must not keep them all. */
  readonly onOutput: (chunk: Buffer) => void
}

/** After SIGTERM, how long the group gets to exit before SIGKILL. */
const TERM_GRACE = Duration.seconds(2)
/** After SIGKILL, how long to wait for the kernel to finish the group off. */
const KILL_WAIT = Duration.seconds(1)
/** After the shell exits, how long to wait for output still in the pipes (background children may hold them open). */
const DRAIN_WAIT = Duration.millis(250)
const POLL_EVERY = Duration.millis(25)

interface Running {
  readonly child: ChildProcess
  readonly exited: Deferred.Deferred<CommandOutcome>
  /** Done when the child has exited and its stdout and stderr are closed. */
  readonly closed: Deferred.Deferred<void>
}

/**
 * Runs `command` with `bash -c` (or `/bin/sh`) in its own process group. Whatever way the
 * run ends (exit, timeout, interruption), the whole group is terminated (SIGTERM, then
 * SIGKILL after a grace period) before this effect completes, so no process outlives it.
 */
export const runCommand = (options: CommandOptions): Effect.Effect<CommandOutcome> =>
  Effect.scoped(
    Effect.gen(function* () {
      const running = yield* Effect.acquireRelease(start(options), terminateGroup)
      const outcome = yield* Deferred.await(running.exited).pipe(
        Effect.timeoutTo({ duration: options.timeout, onSuccess: (o): CommandOutcome => o, onTimeout: (): CommandOutcome => ({ _tag: "timedOut" }) })
      )
      if (outcome._tag === "exited") yield* Effect.timeoutOption(Deferred.await(running.closed), DRAIN_WAIT)
      return outcome
    })
  ).pipe(Effect.catchAll((message) => Effect.succeed<CommandOutcome>({ _tag: "spawnFailed", message })))

const shellPath = (): string => (existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh")

const start = (options: CommandOptions): Effect.Effect<Running, string> =>
  Effect.gen(function* () {
    const exited = yield* Deferred.make<CommandOutcome>()
    const closed = yield* Deferred.make<void>()
    // Loaded on the first command: most runs never spawn one, and the module is costly to load.
    const { spawn } = yield* Effect.promise(() => import("node:child_process"))
    const child = yield* Effect.try({
      // detached: the shell leads a new process group, so one signal reaches everything it starts.
      try: () => spawn(shellPath(), ["-c", options.command], { cwd: options.cwd, detached: true, stdio: ["ignore", "pipe", "pipe"] }),
      catch: (error) => (error instanceof Error ? error.message : String(error))
    })
    child.on("exit", (exitCode, signal) => Deferred.unsafeDone(exited, Effect.succeed({ _tag: "exited", exitCode, signal })))
    child.on("error", (error) =>
      Deferred.unsafeDone(exited, Effect.succeed({ _tag: "spawnFailed", message: `could not start ${shellPath()}: ${error.message}` }))
    )
    child.on("close", () => Deferred.unsafeDone(closed, Effect.void))
    child.stdout?.on("data", options.onOutput)
    child.stderr?.on("data", options.onOutput)
    return { child, exited, closed }
  })

const terminateGroup = ({ child }: Running): Effect.Effect<void> =>
  Effect.gen(function* () {
    const pgid = child.pid
    if (pgid !== undefined && (yield* signalGroup(pgid, "SIGTERM"))) {
      const gone = yield* awaitGroupGone(pgid, TERM_GRACE)
      if (!gone && (yield* signalGroup(pgid, "SIGKILL"))) {
        if (!(yield* awaitGroupGone(pgid, KILL_WAIT))) yield* Effect.logWarning(`process group ${pgid} survived SIGKILL`)
      }
    }
    child.stdout?.destroy()
    child.stderr?.destroy()
  })

/** Sends `signal` to every process of the group; false when the group no longer exists (or cannot be signalled). */
const signalGroup = (pgid: number, signal: NodeJS.Signals): Effect.Effect<boolean> =>
  Effect.suspend(() => {
    try {
      process.kill(-pgid, signal)
      return Effect.succeed(true)
    } catch (error) {
      if (errnoCode(error) === "ESRCH") return Effect.succeed(false)
      return Effect.logWarning(`cannot send ${signal} to process group ${pgid}: ${String(error)}`).pipe(Effect.as(false))
    }
  })

const awaitGroupGone = (pgid: number, within: Duration.Duration): Effect.Effect<boolean> =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(within)
    while (yield* Effect.promise(() => groupAlive(pgid))) {
      if ((yield* Clock.currentTimeMillis) >= deadline) return false
      yield* Effect.sleep(POLL_EVERY)
    }
    return true
  })

/**
 * Whether the group still has a running (non-zombie) member. Zombies count as gone: an
 * orphan that exited waits for its reaper (which in a container may never come), but it
 * holds no resources. Where /proc is missing, any member the kernel still knows counts.
 */
const groupAlive = async (pgid: number): Promise<boolean> => {
  try {
    process.kill(-pgid, 0)
  } catch {
    // ESRCH: no member at all. EPERM: members we may not signal, which we could not kill anyway.
    return false
  }
  let pids: Array<string>
  try {
    pids = await fs.readdir("/proc")
  } catch {
    // No /proc (macOS): the signal probe above is all there is.
    return true
  }
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue
    // A process that exits between readdir and this read has no stat left: it is not a live member.
    const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8").catch(() => "")
    // Fields after the parenthesised command name: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    if (fields[2] === String(pgid) && fields[0] !== "Z") return true
  }
  return false
}
