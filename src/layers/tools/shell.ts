import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import { existsSync } from "node:fs"
import { StringDecoder } from "node:string_decoder"
import type { SandboxProfile } from "../../domain/sandbox.js"
import type { ToolResult } from "../../domain/tools.js"
import type { SandboxShape } from "../../services/Sandbox.js"
import type { Tool } from "../../services/ToolRouter.js"
import { analyzeShell } from "../permission/shell-analysis.js"
import { redirectPaths } from "../permission/shell-targets.js"
import { sandboxNotes } from "../sandbox/notes.js"
import { childEnvironment, FIXED_ONLY } from "../subprocess-env.js"
import type { EnvironmentPolicy } from "../../services/SubprocessEnvironment.js"
import { ToolOutput } from "../../services/ToolOutput.js"
import { HeadTailBuffer } from "./head-tail-buffer.js"
import { makeTool } from "./make-tool.js"
import { type CommandOutcome, runCommand } from "./process-group.js"
import { errorResult, okResult } from "./tool-results.js"
import { isWithin } from "./workspace-paths.js"

export const SHELL_DEFAULT_TIMEOUT_MS = 120_000
export const SHELL_MAX_TIMEOUT_MS = 600_000
/** Output kept from the start and from the end of a command's output; the middle is dropped and counted. */
export const SHELL_HEAD_BYTES = 16 * 1024
export const SHELL_TAIL_BYTES = 16 * 1024

const ShellInput = Schema.Struct({
  command: Schema.String.pipe(Schema.minLength(1)).annotations({ description: "The command line, run with bash -c in the workspace root." }),
  timeout_ms: Schema.optionalWith(
    Schema.Number.pipe(Schema.int(), Schema.between(1, SHELL_MAX_TIMEOUT_MS)).annotations({
      description: `Milliseconds before the command is killed (default ${SHELL_DEFAULT_TIMEOUT_MS}, at most ${SHELL_MAX_TIMEOUT_MS}).`
    }),
    { exact: true }
  ),
  description: Schema.optionalWith(
    Schema.String.annotations({ description: "A few words on what the command does, shown to the person approving it." }),
    { exact: true }
  )
})

/**
 * The shell tool; its commands run under the sandbox's profile for the workspace, recorded in
 * the prepared call, with the environment `environment` lets them inherit (see subprocess-env.ts).
 */
export const makeShellTool = (sandbox: SandboxShape, environment: EnvironmentPolicy = FIXED_ONLY): Tool => makeTool({
  name: "shell",
  description:
    "Run a shell command (bash -c) in the workspace root, with no input on stdin. Returns stdout and stderr interleaved, " +
    `and the exit code. Long output keeps its first ${SHELL_HEAD_BYTES / 1024} KiB and last ${SHELL_TAIL_BYTES / 1024} KiB. ` +
    "On timeout the command and every process it started are killed; background processes do not outlive the command. " +
    "Commands may run in a sandbox where only the workspace and a private /tmp are writable and the network is off; " +
    "the output says when the sandbox refused something.",
  input: ShellInput,
  prepare: (input, ctx) =>
    Effect.gen(function* () {
      const profile = yield* sandbox.profile(ctx.workspaceRoot)
      // Rules judge the line as bash reads it; its redirection targets are the paths it touches.
      const shell = yield* analyzeShell(input.command, ctx.workspaceRoot)
      // Where they really land (links followed): judged against the real workspace root as they are.
      const paths = redirectPaths(shell)
      return {
        risk: "execute" as const,
        summary: `shell: ${firstLine(input.command)}`,
        detail: input.description === undefined ? input.command : `# ${input.description}\n${input.command}`,
        paths,
        outsideWorkspace: paths.some((p) => !isWithin(ctx.workspaceRoot, p)),
        command: input.command,
        shell,
        sandbox: profile,
        liveOutput: true,
        execute: runShell(sandbox, environment, profile, input.command, ctx.workspaceRoot, input.timeout_ms ?? SHELL_DEFAULT_TIMEOUT_MS, ctx.traceparent)
      }
    })
})

const firstLine = (command: string): string => {
  const lines = command.trim().split("\n")
  const first = lines[0] ?? ""
  const clipped = first.length > 200 ? `${first.slice(0, 200)}…` : first
  return lines.length > 1 ? `${clipped} …` : clipped
}

const shellPath = (): string => (existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh")

const runShell = (
  sandbox: SandboxShape,
  environment: EnvironmentPolicy,
  profile: SandboxProfile,
  command: string,
  cwd: string,
  timeoutMs: number,
  traceparent: string | undefined
): Effect.Effect<ToolResult> =>
  Effect.gen(function* () {
    const wrapped = yield* Effect.either(sandbox.wrap({ argv: [shellPath(), "-c", command], cwd, workspaceRoot: cwd, profile, detached: true }))
    if (wrapped._tag === "Left") {
      const message = `could not run the command in the sandbox: ${wrapped.left.message}`
      return errorResult(message, shellData(command, { _tag: "spawnFailed", message }, false))
    }
    const output = new HeadTailBuffer(SHELL_HEAD_BYTES, SHELL_TAIL_BYTES)
    const live = yield* liveOutput
    const outcome = yield* runCommand({
      argv: wrapped.right,
      cwd,
      timeout: Duration.millis(timeoutMs),
      onOutput: (chunk) => {
        output.append(chunk)
        live(chunk)
      },
      // The command's own tracing, where it traces, joins the call's span; bubblewrap passes the environment on.
      env: childEnvironment(environment, traceparent === undefined ? {} : { TRACEPARENT: traceparent })
    })
    const text = output.total === 0 ? "(no output)" : output.render()
    const data = shellData(command, outcome, output.dropped > 0)
    const notes = sandboxNotes(text, profile).map((note) => `\n${note}`).join("")
    switch (outcome._tag) {
      case "spawnFailed":
        return errorResult(`could not run the command: ${outcome.message}`, data)
      case "timedOut":
        return errorResult(`${text}\n[timed out after ${timeoutMs} ms; the command and every process it started were killed]${notes}`, data)
      case "exited":
        if (outcome.exitCode === 0) return okResult(`${text}\n[exit code 0]${notes}`, data)
        if (outcome.exitCode !== null) return errorResult(`${text}\n[exit code ${outcome.exitCode}]${notes}`, data)
        return errorResult(`${text}\n[terminated by ${outcome.signal ?? "a signal"}]${notes}`, data)
    }
    // What the sandbox prepared for the command lasts until it has ended.
  }).pipe(Effect.scoped)

/**
 * Where the command's output goes as it arrives, besides its result: the engine's `ToolOutput`
 * when the call runs in a turn (it records it, bounded), decoded as UTF-8 across chunk
 * boundaries; nowhere otherwise.
 */
const liveOutput: Effect.Effect<(chunk: Buffer) => void> = Effect.gen(function* () {
  const sink = yield* Effect.serviceOption(ToolOutput)
  if (Option.isNone(sink)) return () => undefined
  const runtime = yield* Effect.runtime<never>()
  const decoder = new StringDecoder("utf8")
  // The pipe's callbacks are outside every fiber; `write` never waits, so this runs it to its end at once.
  return (chunk) => {
    Runtime.runFork(runtime)(sink.value.write(decoder.write(chunk)))
  }
})

const shellData = (command: string, outcome: CommandOutcome, truncated: boolean) => ({
  _tag: "shell" as const,
  command,
  exitCode: outcome._tag === "exited" ? outcome.exitCode : null,
  ...(outcome._tag === "exited" && outcome.signal !== null ? { signal: outcome.signal } : {}),
  timedOut: outcome._tag === "timedOut",
  truncated
})
