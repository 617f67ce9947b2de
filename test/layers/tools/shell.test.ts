import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import * as path from "node:path"
import { sandboxOff } from "../../../src/layers/sandbox/off.js"
import { makeShellTool, SHELL_HEAD_BYTES, SHELL_TAIL_BYTES } from "../../../src/layers/tools/shell.js"
import { ToolOutput } from "../../../src/services/ToolOutput.js"
import { awaitPids, isRunning } from "../../support/process-check.js"
import { prepare, run, tempWorkspace } from "./workspace-fixture.js"

// The shell itself, outside any sandbox (PIDs the commands print are ours); sandboxed runs: shell-sandbox.test.ts.
const shellTool = makeShellTool(sandboxOff)

describe("shell", () => {
  it.scoped("describes the call for the permission card", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const call = yield* prepare(shellTool, { command: "npm test -- --run\necho done", description: "run the tests" }, root)
      expect(call).toMatchObject({
        risk: "execute",
        summary: "shell: npm test -- --run …",
        detail: "# run the tests\nnpm test -- --run\necho done",
        command: "npm test -- --run\necho done",
        outsideWorkspace: false,
        sandbox: { _tag: "none", reason: "off" }
      })
    }))

  it.live("runs in the workspace root and reports exit code 0 with stdout and stderr interleaved", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const result = yield* run(shellTool, { command: "pwd; sleep 0.1; echo err >&2; sleep 0.1; echo out" }, root)
        expect(result).toEqual({
          output: `${root}\nerr\nout\n\n[exit code 0]`,
          isError: false,
          data: { _tag: "shell", command: "pwd; sleep 0.1; echo err >&2; sleep 0.1; echo out", exitCode: 0, timedOut: false, truncated: false }
        })
      })
    ))

  it.live("a non-zero exit is an error result with the exit code, not a failure", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const result = yield* run(shellTool, { command: "echo failing; exit 3" }, root)
        expect(result.isError).toBe(true)
        expect(result.output).toBe("failing\n\n[exit code 3]")
        expect(result.data).toMatchObject({ _tag: "shell", exitCode: 3, timedOut: false })
        const silent = yield* run(shellTool, { command: "false" }, root)
        expect(silent.output).toBe("(no output)\n[exit code 1]")
      })
    ))

  it.live("a command killed by a signal reports the signal", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const result = yield* run(shellTool, { command: "kill -KILL $$" }, root)
        expect(result.isError).toBe(true)
        expect(result.output).toBe("(no output)\n[terminated by SIGKILL]")
        expect(result.data).toEqual({ _tag: "shell", command: "kill -KILL $$", exitCode: null, signal: "SIGKILL", timedOut: false, truncated: false })
      })
    ))

  it.live("a command that times out is killed, with the children it started in the background", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const pidFile = path.join(root, "pids")
        const command = `echo $$ > ${pidFile}; sleep 30 & echo $! >> ${pidFile}; echo started; sleep 30`
        const result = yield* run(shellTool, { command, timeout_ms: 300 }, root)
        expect(result.isError).toBe(true)
        expect(result.output).toBe("started\n\n[timed out after 300 ms; the command and every process it started were killed]")
        expect(result.data).toEqual({ _tag: "shell", command, exitCode: null, timedOut: true, truncated: false })
        const pids = yield* awaitPids(pidFile, 2)
        expect(pids.filter(isRunning)).toEqual([])
      })
    ))

  it.live("processes that ignore SIGTERM are killed with SIGKILL after the grace period", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const pidFile = path.join(root, "pids")
        // An ignored signal stays ignored across fork and exec, so both the shell and its sleep shrug off SIGTERM.
        const command = `trap '' TERM; echo $$ > ${pidFile}; sleep 30 & echo $! >> ${pidFile}; wait`
        const result = yield* run(shellTool, { command, timeout_ms: 200 }, root)
        expect(result.data).toMatchObject({ timedOut: true })
        const pids = yield* awaitPids(pidFile, 2)
        expect(pids.filter(isRunning)).toEqual([])
      })
    ))

  it.live("background processes do not outlive a command that exits normally", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const pidFile = path.join(root, "pids")
        const result = yield* run(shellTool, { command: `sleep 30 & echo $! > ${pidFile}; echo done` }, root)
        expect(result.output).toBe("done\n\n[exit code 0]")
        const pids = yield* awaitPids(pidFile, 1)
        expect(pids.filter(isRunning)).toEqual([])
      })
    ))

  it.live("an interrupted command leaves no process behind", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const pidFile = path.join(root, "pids")
        const call = yield* prepare(shellTool, { command: `echo $$ > ${pidFile}; sleep 30 & echo $! >> ${pidFile}; wait` }, root)
        const fiber = yield* Effect.fork(call.execute)
        const pids = yield* awaitPids(pidFile, 2)
        expect(pids.filter(isRunning)).toEqual(pids)
        yield* Fiber.interrupt(fiber)
        expect(pids.filter(isRunning)).toEqual([])
      })
    ))

  it.live("10 MB of output comes back capped head and tail, with the dropped byte count", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const command = "head -c 10000000 /dev/zero | tr '\\0' a"
        const result = yield* run(shellTool, { command }, root)
        const dropped = 10_000_000 - SHELL_HEAD_BYTES - SHELL_TAIL_BYTES
        expect(result.output).toBe(
          `${"a".repeat(SHELL_HEAD_BYTES)}\n\n[... ${dropped} bytes of output dropped ...]\n\n${"a".repeat(SHELL_TAIL_BYTES)}\n[exit code 0]`
        )
        expect(result.data).toEqual({ _tag: "shell", command, exitCode: 0, timedOut: false, truncated: true })
      })
    ))

  it.live("output is never held whole: 200 MB goes through with far less memory", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const before = process.memoryUsage()
        let peak = 0
        const sampler = setInterval(() => {
          const now = process.memoryUsage()
          peak = Math.max(peak, now.arrayBuffers - before.arrayBuffers + now.heapUsed - before.heapUsed)
        }, 2)
        const result = yield* run(shellTool, { command: "head -c 200000000 /dev/zero | tr '\\0' a" }, root).pipe(
          Effect.ensuring(Effect.sync(() => clearInterval(sampler)))
        )
        expect(result.output).toContain("[... 199967232 bytes of output dropped ...]")
        // Holding the output would take at least 200 MB; chunks in flight and not yet collected take far less.
        expect(peak).toBeLessThan(100_000_000)
      })
    ))

  it.live("a workspace root that does not exist is an error result, not a failure", () =>
    Effect.gen(function* () {
      const result = yield* run(shellTool, { command: "echo hi" }, "/nonexistent/workspace")
      expect(result.isError).toBe(true)
      expect(result.output).toContain("could not run the command")
      expect(result.data).toMatchObject({ exitCode: null, timedOut: false })
    }))

  it.scoped("invalid input is a ToolInputError naming the field", () =>
    Effect.gen(function* () {
      const root = yield* tempWorkspace
      const missing = yield* Effect.flip(prepare(shellTool, { timeout_ms: 10 }, root))
      expect(missing.message).toContain("command: is missing")
      const tooLong = yield* Effect.flip(prepare(shellTool, { command: "true", timeout_ms: 600_001 }, root))
      expect(tooLong.message).toContain("timeout_ms")
      const wrongType = yield* Effect.flip(prepare(shellTool, { command: ["ls"] }, root))
      expect(wrongType.message).toContain("command: Expected string")
    }))

  it.live("writes its output as it arrives to the engine's ToolOutput, decoded as UTF-8 across chunks, besides its result", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const root = yield* tempWorkspace
        const written: Array<string> = []
        // "é" (C3 A9) split over two writes of the command, so two pipe chunks can end mid-character.
        const command = "printf 'caf\\303'; sleep 0.05; printf '\\251\\n'; echo more >&2"
        const result = yield* run(shellTool, { command }, root).pipe(
          Effect.provideService(ToolOutput, { write: (text) => Effect.sync(() => written.push(text)) })
        )
        expect(result.output).toBe("café\nmore\n\n[exit code 0]")
        expect(written.join("")).toBe("café\nmore\n")
        expect(written.join("")).not.toContain("\ufffd")
      })
    ))
})
