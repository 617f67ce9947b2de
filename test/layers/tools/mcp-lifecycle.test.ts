import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { awaitPids, isRunning } from "../../support/process-check.js"
import { makeHub, tempDir, testServer } from "../../support/mcp-fixtures.js"

const pidsIn = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map(Number) : [])

describe("MCP: when servers start and stop", () => {
  it.live("nothing starts until the session is used; concurrent first uses share one start", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-lazy-")
        const pidFile = join(dir, "pids")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [testServer("t", { MCP_TEST_PID_FILE: pidFile })])
        expect(yield* hub.drainNotices("s1")).toEqual([])
        expect(pidsIn(pidFile)).toEqual([])

        const [tools, statuses, instructions] = yield* Effect.all([hub.source.tools({ sessionId: "s1", workspaceRoot: "/" }), hub.status("s1"), hub.instructions("s1")], {
          concurrency: "unbounded"
        })
        expect(tools.map((t) => t.definition.name)).toContain("mcp__t__echo")
        expect(statuses.map((s) => s.state)).toEqual(["ready"])
        expect(instructions).toEqual([{ server: "t", text: "Use echo to repeat things back." }])
        expect(pidsIn(pidFile)).toHaveLength(1)
        expect(yield* hub.drainNotices("s1")).toEqual([{ server: "t", state: "ready", message: "4 tools" }])
      })
    ))

  it.live("a release during the start stops what started; whoever waited gets no servers", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-release-early-")
        const pidFile = join(dir, "pid")
        const hub = yield* makeHub()
        const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid) + '\\n'); setInterval(() => {}, 1000)`
        yield* hub.configureSession("s1", dir, [{ name: "slow", command: process.execPath, args: ["-e", script], env: {} }])
        const waiting = yield* Effect.fork(hub.status("s1"))
        const [pid] = yield* awaitPids(pidFile, 1)
        yield* hub.release("s1")
        expect(yield* Fiber.join(waiting)).toEqual([])
        expect(pid !== undefined && isRunning(pid)).toBe(false)
      })
    ))

  it.live("reconfiguring a started session stops its servers; the new ones start on next use", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-reconf-")
        const pidFile = join(dir, "pids")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [testServer("first", { MCP_TEST_PID_FILE: pidFile })])
        expect((yield* hub.status("s1")).map((s) => s.name)).toEqual(["first"])
        const [first] = yield* awaitPids(pidFile, 1)

        yield* hub.configureSession("s1", dir, [testServer("second", { MCP_TEST_PID_FILE: pidFile })])
        expect(first !== undefined && isRunning(first)).toBe(false)
        expect((yield* hub.status("s1")).map((s) => [s.name, s.state])).toEqual([["second", "ready"]])
        expect((yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })).every((t) => t.definition.name.startsWith("mcp__second__"))).toBe(true)
      })
    ))

  it.live("sessions are separate: each has its own servers and notices", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-sessions-")
        const hub = yield* makeHub()
        yield* hub.configureSession("a", dir, [testServer("alpha")])
        yield* hub.configureSession("b", dir, [])
        expect((yield* hub.status("a")).map((s) => s.name)).toEqual(["alpha"])
        expect(yield* hub.status("b")).toEqual([])
        expect(yield* hub.source.tools({ sessionId: "b", workspaceRoot: "/" })).toEqual([])
        expect(yield* hub.drainNotices("b")).toEqual([])
        expect((yield* hub.drainNotices("a")).map((n) => n.server)).toEqual(["alpha"])
      })
    ))
})
