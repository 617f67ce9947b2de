import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { existsSync } from "node:fs"
import type { ConfiguredHook } from "../../domain/hooks.js"
import type { SandboxProfile } from "../../domain/sandbox.js"
import type { HookInvocation, HookRun } from "../../services/Hooks.js"
import type { SandboxShape } from "../../services/Sandbox.js"
import type { EnvironmentPolicy } from "../../services/SubprocessEnvironment.js"
import { childEnvironment } from "../subprocess-env.js"
import { HeadTailBuffer } from "../tools/head-tail-buffer.js"
import { runCommand } from "../tools/process-group.js"
import { outcomeOf } from "./output.js"

/** Output kept for reading a hook's answer: JSON answers are small, and a hook printing megabytes is cut. */
const READ_HEAD_BYTES = 64 * 1024
const READ_TAIL_BYTES = 4 * 1024
/** Output kept in the `hook.ran` event, per stream. */
const RECORDED_OUTPUT_CHARS = 2_000

const shellPath = (): string => (existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh")

const cut = (text: string): string =>
  text.length <= RECORDED_OUTPUT_CHARS ? text : `${text.slice(0, RECORDED_OUTPUT_CHARS)}\n[... ${text.length - RECORDED_OUTPUT_CHARS} more characters not recorded]`

const recorded = (stdout: string, stderr: string): string => {
  const parts = [stdout.trim() === "" ? "" : cut(stdout.trimEnd()), stderr.trim() === "" ? "" : `[stderr]\n${cut(stderr.trimEnd())}`]
  return parts.filter((part) => part !== "").join("\n")
}

/** The JSON a hook reads on stdin: Claude Code's common fields, then the event's own. */
const stdinOf = (invocation: HookInvocation): string =>
  JSON.stringify({
    session_id: invocation.sessionId,
    hook_event_name: invocation.event,
    cwd: invocation.workspaceRoot,
    ...invocation.fields
  })

/**
 * Runs one hook: `bash -c <command>` in the workspace, inside the sandbox under `profile`, with
 * the invocation's JSON on stdin and `CLAUDE_PROJECT_DIR` (and `CUSTOM_AGENT_PROJECT_DIR`) set
 * in the environment `environment` lets it inherit (see subprocess-env.ts).
 * On timeout or interruption its whole process group is killed (see runCommand).
 */
export const runHook = (
  sandbox: SandboxShape,
  environment: EnvironmentPolicy,
  profile: SandboxProfile,
  hook: ConfiguredHook,
  invocation: HookInvocation
): Effect.Effect<HookRun> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const root = invocation.workspaceRoot
    const base = {
      event: hook.event,
      ...(hook.matcher === undefined ? {} : { matcher: hook.matcher }),
      command: hook.command,
      source: hook.source
    }
    const elapsed = Effect.map(Clock.currentTimeMillis, (now) => now - started)
    // The user's own hooks are the user's code (a notification, a log): they run as the user,
    // like Claude Code's. A project's hooks came with the repository and stay in the sandbox.
    const argv = [shellPath(), "-c", hook.command] as const
    const wrapped = yield* Effect.either(
      hook.source === "user" ? Effect.succeed(argv) : sandbox.wrap({ argv, cwd: root, workspaceRoot: root, profile, detached: true })
    )
    if (wrapped._tag === "Left") {
      const output = `could not run the hook in the sandbox: ${wrapped.left.message}`
      return { ...base, exitCode: null, timedOut: false, durationMs: yield* elapsed, output, outcome: {} }
    }
    const stdout = new HeadTailBuffer(READ_HEAD_BYTES, READ_TAIL_BYTES)
    const stderr = new HeadTailBuffer(READ_HEAD_BYTES, READ_TAIL_BYTES)
    const ended = yield* runCommand({
      argv: wrapped.right,
      cwd: root,
      timeout: Duration.seconds(hook.timeoutSeconds),
      onOutput: (chunk) => stdout.append(chunk),
      onStderr: (chunk) => stderr.append(chunk),
      stdin: stdinOf(invocation),
      env: childEnvironment(environment, {
        CLAUDE_PROJECT_DIR: root,
        CUSTOM_AGENT_PROJECT_DIR: root,
        ...(invocation.traceparent === undefined ? {} : { TRACEPARENT: invocation.traceparent })
      })
    })
    const durationMs = yield* elapsed
    const out = stdout.render()
    const err = stderr.render()
    switch (ended._tag) {
      case "spawnFailed":
        return { ...base, exitCode: null, timedOut: false, durationMs, output: `could not start the hook: ${ended.message}`, outcome: {} }
      case "timedOut": {
        const note = `[timed out after ${hook.timeoutSeconds} s; the hook and every process it started were killed]`
        return { ...base, exitCode: null, timedOut: true, durationMs, output: [recorded(out, err), note].filter((p) => p !== "").join("\n"), outcome: {} }
      }
      case "exited":
        return { ...base, exitCode: ended.exitCode, timedOut: false, durationMs, output: recorded(out, err), outcome: outcomeOf(hook.event, ended.exitCode, out, err) }
    }
    // What the sandbox prepared for the hook lasts until it has ended.
  }).pipe(Effect.scoped)
