import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { PermissionMode } from "../../src/domain/permissions.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { isRunning } from "../support/process-check.js"
import { awaitEvent, engineLayer, type HarnessOptions, replayAll, turnTypes, types } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"

const workspaces: Array<string> = []
afterAll(() => {
  for (const dir of workspaces) rmSync(dir, { recursive: true, force: true })
})

const workspace = (files: Record<string, string> = {}) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "loop-")))
  workspaces.push(dir)
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
  return dir
}

const toolCall = (name: string, input: unknown, id?: string) => ({ toolCall: { name, input, ...(id === undefined ? {} : { id }) } })

/** Runs one turn in a fresh session rooted at `cwd`, returns the turn's events. */
const turn = (cwd: string, prompt: string, permissionMode: PermissionMode = "default", maxSteps?: number) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const { header } = yield* engine.createSession({ cwd, client: "test" })
    const events = yield* Stream.runCollect(
      engine.runTurn({ sessionId: header.sessionId, content: prompt, permissionMode, ...(maxSteps === undefined ? {} : { maxSteps }) })
    )
    return { sessionId: header.sessionId, events: Chunk.toArray(events) }
  })

const run = (script: Script, options: HarnessOptions = {}) =>
  Effect.provide(engineLayer(MemoryStore.layer, script, { tools: localTools(sandboxOff), ...options }))


describe("the agent loop", () => {
  it.effect("a read needs no question: tool result goes back to the model, which answers", () => {
    const cwd = workspace({ "notes.txt": "remember the milk\n" })
    return Effect.gen(function* () {
      const { events } = yield* turn(cwd, "what do my notes say?")
      expect(turnTypes(events)).toEqual([
        "turn.started",
        "user.message",
        "session.renamed",
        "model.tool_call_requested",
        "model.completed",
        "permission.resolved",
        "tool.started",
        "tool.completed",
        "model.delta",
        "model.delta",
        "model.completed",
        "turn.completed"
      ])
      expect(eventsOf(events, "permission.resolved").map((e) => e.payload)[0]).toMatchObject({ decision: "allow", by: "default" })
      expect(eventsOf(events, "tool.completed").map((e) => e.payload)[0]).toMatchObject({ isError: false })
      expect(eventsOf(events, "tool.completed").map((e) => e.payload)[0]?.output).toContain("remember the milk")
      expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
    }).pipe(run({ responses: [{ chunks: [toolCall("read_file", { path: "notes.txt" })] }, "Buy milk."] }))
  })

  it.effect("a write asks; a denial answers the model with an error and nothing is written or started", () => {
    const cwd = workspace()
    return Effect.gen(function* () {
      const { events } = yield* turn(cwd, "write it")
      const requested = eventsOf(events, "permission.requested").map((e) => e.payload)
      expect(requested).toHaveLength(1)
      expect(requested[0]).toMatchObject({ tool: "write_file", risk: "write" })
      expect(requested[0]?.detail).toContain("+hello")
      expect(eventsOf(events, "permission.resolved").map((e) => e.payload)[0]).toMatchObject({ decision: "deny", by: "user" })
      expect(types(events)).not.toContain("tool.started")
      const result = eventsOf(events, "tool.completed").map((e) => e.payload)[0]
      expect(result).toMatchObject({ isError: true })
      expect(result?.output).toContain("Permission denied")
      expect(existsSync(join(cwd, "out.txt"))).toBe(false)
      expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
    }).pipe(
      run(
        { responses: [{ chunks: [toolCall("write_file", { path: "out.txt", content: "hello\n" })] }, "I could not write it."] },
        { answers: [{ decision: "deny", scope: "once", by: "user" }] }
      )
    )
  })

  it.effect("an approved edit runs after its permission.resolved and changes the file; a session approval is remembered", () => {
    const cwd = workspace({ "a.txt": "one\ntwo\n" })
    return Effect.gen(function* () {
      const { events } = yield* turn(cwd, "edit twice")
      expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("ONE\nTWO\n")
      const resolved = eventsOf(events, "permission.resolved").map((e) => e.payload)
      expect(resolved.map((r) => [r.decision, r.by, r.scope])).toEqual([
        ["allow", "user", "session"],
        ["allow", "remembered", "session"]
      ])
      const edits = eventsOf(events, "tool.completed").map((e) => e.payload).map((c) => c.data)
      expect(edits[0]).toMatchObject({ _tag: "edit", before: "one\ntwo\n", after: "ONE\ntwo\n" })
      expect(edits[1]).toMatchObject({ _tag: "edit", after: "ONE\nTWO\n" })
      const order = types(events)
      expect(order.indexOf("permission.resolved")).toBeLessThan(order.indexOf("tool.started"))
    }).pipe(
      run(
        {
          responses: [
            { chunks: [toolCall("edit_file", { path: "a.txt", old_string: "one", new_string: "ONE" })] },
            { chunks: [toolCall("edit_file", { path: "a.txt", old_string: "two", new_string: "TWO" })] },
            "Done."
          ]
        },
        { answers: [{ decision: "allow", scope: "session", by: "user" }] }
      )
    )
  })

  it.effect("plan mode denies writes by mode; accept-edits allows them without asking", () => {
    const cwd = workspace()
    const script: Script = { responses: [{ chunks: [toolCall("write_file", { path: "p.txt", content: "x" })] }, "ok"] }
    return Effect.gen(function* () {
      const plan = yield* turn(cwd, "write", "plan").pipe(run(script))
      expect(eventsOf(plan.events, "permission.resolved").map((e) => e.payload)[0]).toMatchObject({ decision: "deny", by: "mode" })
      expect(existsSync(join(cwd, "p.txt"))).toBe(false)
      const edits = yield* turn(cwd, "write", "accept-edits").pipe(run(script))
      expect(eventsOf(edits.events, "permission.resolved").map((e) => e.payload)[0]).toMatchObject({ decision: "allow", by: "mode" })
      expect(types(edits.events)).not.toContain("permission.requested")
      expect(readFileSync(join(cwd, "p.txt"), "utf8")).toBe("x")
    })
  })

  it.effect("unknown tools and invalid input go back to the model as errors; a failing tool does not stop the loop", () => {
    const cwd = workspace()
    return Effect.gen(function* () {
      const { events } = yield* turn(cwd, "try things")
      const results = eventsOf(events, "tool.completed").map((e) => e.payload)
      expect(results.map((r) => r.isError)).toEqual([true, true, true])
      expect(results[0]?.output).toContain('Unknown tool "teleport"')
      expect(results[1]?.output).toContain("Invalid input for read_file")
      expect(results[2]?.output).toContain("missing.txt")
      // Only the real (if failing) call went through the permission boundary and started.
      expect(eventsOf(events, "permission.resolved").map((e) => e.payload)).toHaveLength(1)
      expect(eventsOf(events, "tool.started").map((e) => e.payload)).toHaveLength(1)
      expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
    }).pipe(
      run({
        responses: [
          { chunks: [toolCall("teleport", {}), toolCall("read_file", { line: 3 }), toolCall("read_file", { path: "missing.txt" })] },
          "Nothing worked."
        ]
      })
    )
  })

  it.effect("the step limit ends the turn with max_steps", () => {
    const cwd = workspace({ "a.txt": "a" })
    const again = { chunks: [toolCall("read_file", { path: "a.txt" })] }
    return Effect.gen(function* () {
      const { events } = yield* turn(cwd, "loop", "default", 2)
      expect(eventsOf(events, "model.completed").map((e) => e.payload)).toHaveLength(2)
      expect(events.at(-1)?.payload).toMatchObject({ stopReason: "max_steps" })
    }).pipe(run({ responses: [again, again, again] }))
  })

  it.effect("a cancel while a permission question is open records it cancelled and ends the turn", () => {
    const cwd = workspace()
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      const fiber = yield* engine.runTurn({ sessionId: header.sessionId, content: "run it" }).pipe(Stream.runCollect, Effect.fork)
      yield* awaitEvent(header.sessionId, "permission.requested")
      yield* engine.cancelTurn(header.sessionId)
      const events = Chunk.toArray(yield* Fiber.join(fiber))
      expect(turnTypes(events).slice(-3)).toEqual(["permission.requested", "permission.resolved", "turn.completed"])
      expect(eventsOf(events, "permission.resolved").map((e) => e.payload)[0]).toMatchObject({ decision: "cancelled" })
      expect(events.at(-1)?.payload).toEqual({ stopReason: "cancelled" })
      // The model's next request will carry an answer for the unfinished call.
      const next = yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "never mind" }))
      expect(Chunk.unsafeLast(next).payload).toEqual({ stopReason: "final" })
    }).pipe(run({ responses: [{ chunks: [toolCall("shell", { command: "echo hi" })] }, "ok"] }, { answers: ["wait"] }))
  })

  it.live("a cancel during a shell command kills it and ends the turn cancelled", () => {
    const cwd = workspace()
    const pidFile = join(cwd, "pid")
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      const fiber = yield* engine
        .runTurn({ sessionId: header.sessionId, content: "sleep", permissionMode: "bypass" })
        .pipe(Stream.runCollect, Effect.fork)
      while (!existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === "") yield* Effect.sleep("20 millis")
      const pid = Number(readFileSync(pidFile, "utf8").trim())
      yield* engine.cancelTurn(header.sessionId)
      const events = Chunk.toArray(yield* Fiber.join(fiber))
      expect(eventsOf(events, "tool.completed").map((e) => e.payload)[0]).toMatchObject({ isError: true })
      expect(events.at(-1)?.payload).toEqual({ stopReason: "cancelled" })
      for (let i = 0; i < 50 && isRunning(pid); i++) yield* Effect.sleep("20 millis")
      expect(isRunning(pid)).toBe(false)
      const log = yield* replayAll(header.sessionId)
      expect(log.at(-1)?.type).toBe("turn.completed")
    }).pipe(run({ responses: [{ chunks: [toolCall("shell", { command: `sleep 30 & echo $! > ${pidFile}; wait` })] }, "ok"] }))
  })
})
