import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { ChildProcess } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import type { Argv } from "../../services/Sandbox.js"
import { errnoCode } from "./fs-errors.js"
import { messageOf } from "../../domain/cause-message.js"
import type { ChildEnvironment } from "../subprocess-env.js"

/** How a command run ended. */
export type CommandOutcome =
  | { readonly _tag: "exited"; readonly exitCode: number | null; readonly signal: string | null }
  | { readonly _tag: "timedOut" }
  | { readonly _tag: "spawnFailed"; readonly message: string }

export interface CommandOptions {
  /** The program and its arguments (e.g. `bash -c <line>`, possibly wrapped by the sandbox). */
  readonly argv: Argv
  readonly cwd: string
  readonly timeout: Duration.Duration
  /** Called with stdout and stderr chunks, interleaved as they arrive; must not keep them all. */
  readonly onOutput: (chunk: Buffer) => void
  /** Called with stderr chunks instead of `onOutput`, when the caller keeps the two apart (hooks). */
  readonly onStderr?: (chunk: Buffer) => void
  /** Written to the command's stdin, which is then closed; without it stdin is /dev/null. */
  readonly stdin?: string
  /** The command's whole environment: nothing of ours is inherited unless it is in here. */
  readonly env: ChildEnvironment
}

/** After SIGTERM, how long the group gets to exit before SIGKILL. */
const TERM_GRACE = Duration.seconds(2)
/** After SIGKILL, how long to wait for the kernel to finish the group off. */
const KILL_WAIT = Duration.seconds(1)
/** After the shell exits, how long to wait for output still in the pipes (background children may hold them open). */
const DRAIN_WAIT = Duration.millis(250)
/**
 * The polls for the group's end start at 1 ms and double up to 25 ms: most groups are gone almost
 * at once (a sandbox's init exits a moment after the command), and a fixed 25 ms would be
 * most of a short call's time.
 */
const FIRST_POLL_MS = 1
const MAX_POLL_MS = 25

interface Running {
  readonly child: ChildProcess
  readonly exited: Deferred.Deferred<CommandOutcome>
  /** Done when the child has exited and its stdout and stderr are closed. */
  readonly closed: Deferred.Deferred<void>
}

/**
 * Runs `argv` as the leader of its own session and process group. Whatever way the
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

const start = (options: CommandOptions): Effect.Effect<Running, string> =>
  Effect.gen(function* () {
    const exited = yield* Deferred.make<CommandOutcome>()
    const closed = yield* Deferred.make<void>()
    const [program, ...args] = options.argv
    // Loaded on the first command: most runs never spawn one, and the module is costly to load.
    const { spawn } = yield* Effect.promise(() => import("node:child_process"))
    const child = yield* Effect.try({
      // detached: the program leads a new session and process group, so one signal reaches
      // everything it starts (inside a sandbox too), and it has no controlling terminal.
      try: () =>
        spawn(program, args, {
          cwd: options.cwd,
          detached: true,
          stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
          env: options.env
        }),
      catch: (error) => (messageOf(error))
    })
    child.on("exit", (exitCode, signal) => Deferred.unsafeDone(exited, Effect.succeed({ _tag: "exited", exitCode, signal })))
    child.on("error", (error) =>
      Deferred.unsafeDone(exited, Effect.succeed({ _tag: "spawnFailed", message: `could not start ${program}: ${error.message}` }))
    )
    child.on("close", () => Deferred.unsafeDone(closed, Effect.void))
    child.stdout?.on("data", options.onOutput)
    child.stderr?.on("data", options.onStderr ?? options.onOutput)
    if (options.stdin !== undefined && child.stdin !== null) {
      // A command that exits without reading its input closes the pipe under us (EPIPE): that is its business.
      child.stdin.on("error", () => undefined)
      child.stdin.end(options.stdin)
    }
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
    child.stdin?.destroy()
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
    let pause = FIRST_POLL_MS
    while (yield* Effect.sync(() => groupAlive(pgid))) {
      if ((yield* Clock.currentTimeMillis) >= deadline) return false
      yield* Effect.sleep(Duration.millis(pause))
      pause = Math.min(pause * 2, MAX_POLL_MS)
    }
    return true
  })

/**
 * Whether the group still has a running (non-zombie) member. Zombies count as gone: an
 * orphan that exited waits for its reaper (which in a container may never come), but it
 * holds no resources (a sandbox's init is one, for a moment, after every command). Where
 * /proc is missing, any member the kernel still knows counts. /proc is read synchronously:
 * about a millisecond for a hundred processes, where the same reads through the thread pool
 * took ten times as long, most of a short sandboxed call.
 */
const groupAlive = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
  } catch {
    // ESRCH: no member at all. EPERM: members we may not signal, which we could not kill anyway.
    return false
  }
  let pids: Array<string>
  try {
    pids = readdirSync("/proc")
  } catch {
    // No /proc (macOS): the signal probe above is all there is.
    return true
  }
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue
    // A process that exits between readdir and this read has no stat left: it is not a live member.
    const stat = readStat(pid)
    // Fields after the parenthesised command name: state, ppid, pgrp, ...
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    if (fields[2] === String(pgid) && fields[0] !== "Z") return true
  }
  return false
}

/** A process's stat line; empty when it has exited between the listing and this read. */
const readStat = (pid: string): string => {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return ""
  }
}
