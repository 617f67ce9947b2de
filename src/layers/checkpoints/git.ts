import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type { PlatformError } from "@effect/platform/Error"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { join } from "node:path"
import { CheckpointError } from "../../services/Checkpoints.js"

/** Runs git for one workspace's private repository: its stdout, or a CheckpointError with git's own message. */
export type RunGit = (args: ReadonlyArray<string>, input?: Uint8Array) => Effect.Effect<Buffer, CheckpointError>

/**
 * Settings on every call, so that nothing of the user's (system or global config, hooks,
 * line-ending conversion, fsmonitor daemons) changes what is stored or written back, and the
 * repository never collects garbage or reflogs on its own.
 */
const FIXED_SETTINGS: ReadonlyArray<string> = [
  "core.bare=false",
  "core.hooksPath=/dev/null",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.fsmonitor=false",
  "core.untrackedCache=true",
  "core.quotePath=false",
  "core.symlinks=true",
  "core.fileMode=true",
  "core.logAllRefUpdates=false",
  "core.splitIndex=false",
  "core.sparseCheckout=false",
  "index.version=4",
  "gc.auto=0",
  "maintenance.auto=false",
  "commit.gpgSign=false",
  "submodule.recurse=false",
  // The workspace may belong to another user; our repository is private and ours.
  "safe.directory=*"
]

/** The environment of every call: only what git needs, nothing inherited (an outer GIT_DIR or GIT_INDEX_FILE would redirect us). */
export const gitEnvironment = (gitDir: string, pathVariable: string | undefined): Record<string, string> => ({
  PATH: pathVariable ?? "/usr/local/bin:/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  HOME: gitDir,
  XDG_CONFIG_HOME: gitDir,
  LC_ALL: "C",
  GIT_TERMINAL_PROMPT: "0",
  // Paths we pass are names, never patterns (`*`, `:(glob)` in a file name stay literal).
  GIT_LITERAL_PATHSPECS: "1",
  GIT_AUTHOR_NAME: "custom-agent",
  GIT_AUTHOR_EMAIL: "checkpoints@custom-agent.invalid",
  GIT_COMMITTER_NAME: "custom-agent",
  GIT_COMMITTER_EMAIL: "checkpoints@custom-agent.invalid"
})

/** See CheckpointsOptions.callTimeout. */
export const DEFAULT_CALL_TIMEOUT: Duration.DurationInput = Duration.minutes(2)

export interface GitTarget {
  /** The git executable. */
  readonly git: string
  /** The longest one call may take; past it the call is stopped (its process killed) and fails. */
  readonly callTimeout: Duration.DurationInput
  readonly gitDir: string
  readonly workspaceRoot: string
  /** Told why, when a call is stopped by its time limit (so the workspace's checkpoints go off: see breaker.ts). */
  readonly onStopped: (why: string) => Effect.Effect<void>
}

/**
 * The runner for a workspace: `GIT_DIR` is ours, the work tree is the workspace, the index is
 * ours. The workspace's own `.git/info/exclude` counts as an excludes file (the user's global
 * one does not).
 */
export const gitRunner = (executor: CommandExecutor.CommandExecutor, target: GitTarget): RunGit => {
  const environment = {
    ...gitEnvironment(target.gitDir, process.env["PATH"]),
    GIT_DIR: target.gitDir,
    GIT_WORK_TREE: target.workspaceRoot,
    GIT_INDEX_FILE: join(target.gitDir, "index")
  }
  const settings = [...FIXED_SETTINGS, `core.excludesFile=${join(target.workspaceRoot, ".git", "info", "exclude")}`].flatMap((s) => ["-c", s])
  return (args, input) =>
    run(executor, target, Command.make(target.git, ...settings, ...args).pipe(Command.env(environment, { extendEnv: false })), args, input)
}

/** A runner for `git init` of the repository itself (no GIT_DIR or work tree yet). */
export const initRunner = (executor: CommandExecutor.CommandExecutor, target: GitTarget): RunGit => {
  const environment = gitEnvironment(target.gitDir, process.env["PATH"])
  return (args, input) =>
    run(executor, target, Command.make(target.git, ...args).pipe(Command.env(environment, { extendEnv: false })), args, input)
}

const collect = (stream: Stream.Stream<Uint8Array, PlatformError>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(Chunk.toReadonlyArray(chunks)))

/** One call, its process scoped: interruption (a cancel, the time limit) kills it (and its process group). */
const run = (
  executor: CommandExecutor.CommandExecutor,
  target: GitTarget,
  command: Command.Command,
  args: ReadonlyArray<string>,
  input: Uint8Array | undefined
): Effect.Effect<Buffer, CheckpointError> => {
  const cwd = target.workspaceRoot
  const what = `git ${args[0] ?? ""}`
  const cannotRun = (cause: PlatformError) => new CheckpointError({ workspaceRoot: cwd, message: `${what} could not run: ${cause.message}`, cause })
  const withInput = input === undefined ? command : Command.stdin(command, Stream.make(input))
  return Effect.scoped(
    Effect.gen(function* () {
      const child = yield* Effect.mapError(executor.start(Command.workingDirectory(withInput, cwd)), cannotRun)
      const [stdout, stderr, exitCode] = yield* Effect.mapError(
        Effect.all([collect(child.stdout), collect(child.stderr), child.exitCode], { concurrency: "unbounded" }),
        cannotRun
      )
      if (exitCode === 0) return stdout
      const said = stderr.toString("utf8").trim().slice(0, 2000)
      return yield* new CheckpointError({ workspaceRoot: cwd, message: `${what} failed (exit ${exitCode})${said === "" ? "" : `: ${said}`}` })
    })
  ).pipe(
    Effect.timeout(target.callTimeout),
    Effect.catchTag("TimeoutException", () => {
      const why = `${what} did not finish within ${Duration.format(Duration.decode(target.callTimeout))} and was stopped (something in the workspace, such as a fifo where git reads a .gitignore, may block it)`
      return Effect.zipRight(
        target.onStopped(why),
        Effect.fail(new CheckpointError({ workspaceRoot: cwd, message: `${why}; checkpoints of this workspace are off until the agent restarts` }))
      )
    })
  )
}

/** A `-z` output: NUL-terminated fields, decoded as UTF-8. */
export const nulFields = (output: Buffer): Array<string> => {
  const fields = output.toString("utf8").split("\0")
  if (fields[fields.length - 1] === "") fields.pop()
  return fields
}

/** Paths as `-z --stdin` input. */
export const nulInput = (paths: ReadonlyArray<string>): Uint8Array => Buffer.from(paths.map((p) => `${p}\0`).join(""), "utf8")

/** The one object id a command printed (`write-tree`, `commit-tree`, `rev-parse`). */
export const objectIdOf = (output: Buffer): string => output.toString("utf8").trim()

/** Tree and commit ids as git writes them (SHA-1 or SHA-256), so a caller's id can never pass as an option. */
export const isObjectId = (id: string): boolean => /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(id)
