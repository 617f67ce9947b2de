import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { randomUUID } from "node:crypto"
import { makeShellTool } from "../../../src/layers/tools/shell.js"
import { processesMentioning } from "../../support/mcp-fixtures.js"
import { bwrapInstalled, makeDirs, realSandbox, sandboxSuite } from "../../support/sandbox.js"
import { prepare } from "../tools/workspace-fixture.js"

/**
 * PIDs printed inside the sandbox are its own namespace's, so the processes are found from
 * the host by a marker in their command lines (bwrap's, the shell's, every `sleep`'s).
 */
const marked = () => {
  const marker = `${1000 + Math.floor(Math.random() * 1000)}.${randomUUID().replace(/\D/g, "").slice(0, 9)}`
  return { marker, sleep: `sleep ${marker}` }
}

/** Waits until `count` processes mention the marker (the sandbox has started everything). */
const awaitRunning = (marker: string, count: number) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      if (processesMentioning(marker).length >= count) return
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`never saw ${count} processes mentioning ${marker}: ${processesMentioning(marker).join(", ")}`)
  })

describe.skipIf(!bwrapInstalled)(sandboxSuite("a sandboxed command's lifetime"), () => {
  it.live("on timeout, every process inside the sandbox is killed, background children too", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const sandbox = yield* realSandbox(dirs)
      const { marker, sleep } = marked()
      const call = yield* prepare(makeShellTool(sandbox), { command: `${sleep} & ${sleep} & echo started; wait`, timeout_ms: 500 }, dirs.workspace)
      const result = yield* call.execute
      expect(result.output).toBe("started\n\n[timed out after 500 ms; the command and every process it started were killed]")
      expect(processesMentioning(marker)).toEqual([])
    }).pipe(Effect.scoped))

  it.live("interrupting the call kills every process inside the sandbox, including those that ignore SIGTERM", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const sandbox = yield* realSandbox(dirs)
      const { marker, sleep } = marked()
      const call = yield* prepare(makeShellTool(sandbox), { command: `trap '' TERM; ${sleep} & (trap '' TERM; ${sleep}) & wait` }, dirs.workspace)
      const fiber = yield* Effect.fork(call.execute)
      // Two bwrap processes, the shell, the subshell and two sleeps.
      yield* awaitRunning(marker, 5)
      yield* Fiber.interrupt(fiber)
      expect(processesMentioning(marker)).toEqual([])
    }).pipe(Effect.scoped))

  it.live("background processes do not outlive a command that exits normally", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const sandbox = yield* realSandbox(dirs)
      const { marker, sleep } = marked()
      const result = yield* prepare(makeShellTool(sandbox), { command: `${sleep} & echo done` }, dirs.workspace).pipe(Effect.flatMap((call) => call.execute))
      expect(result.output).toBe("done\n\n[exit code 0]")
      expect(processesMentioning(marker)).toEqual([])
    }).pipe(Effect.scoped))
})
