import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionEngine } from "../../../src/core/SessionEngine.js"
import { LocalFileAccess } from "../../../src/layers/tools/local-file-access.js"
import { McpHub, type McpHubShape } from "../../../src/services/McpHub.js"
import type { Tool } from "../../../src/services/ToolRouter.js"
import { awaitPids, isRunning } from "../../support/process-check.js"
import { awaitNotice, makeHub, tempDir, testServer } from "../../support/mcp-fixtures.js"
import { mcpEngineLayer } from "../../support/mcp-engine.js"

const ctx = (root: string) => ({ sessionId: "s1", toolCallId: "call-1", workspaceRoot: root, files: LocalFileAccess })

const toolNamed = (hub: McpHubShape, name: string): Effect.Effect<Tool> =>
  Effect.flatMap(hub.source.tools({ sessionId: "s1", workspaceRoot: "/" }), (tools) => {
    const tool = tools.find((t) => t.definition.name === name)
    return tool === undefined ? Effect.dieMessage(`no tool ${name}`) : Effect.succeed(tool)
  })

const callTool = (hub: McpHubShape, root: string, name: string, input: unknown = {}) =>
  Effect.flatMap(toolNamed(hub, name), (tool) => Effect.flatMap(tool.prepare(input, ctx(root)), (call) => call.execute))

/** Lines the test server wrote to its events file, once `line` is among them. */
const awaitLine = (file: string, line: string) =>
  Effect.gen(function* () {
    for (let i = 0; i < 400; i++) {
      const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n") : []
      if (lines.includes(line)) return lines
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`the server never wrote "${line}"`)
  })

describe("MCP: trace context", () => {
  it.live("a call made while tracing carries its span's traceparent in _meta; one made without carries none", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-trace-")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [testServer("t", { MCP_TEST_TRACE: "1" })])
        const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        const tool = yield* toolNamed(hub, "mcp__t__trace")
        const traced = yield* Effect.flatMap(tool.prepare({}, { ...ctx(dir), traceparent }), (call) => call.execute)
        expect(traced).toMatchObject({ output: `traceparent=${traceparent}`, isError: false })
        expect(yield* callTool(hub, dir, "mcp__t__trace")).toMatchObject({ output: "traceparent=none", isError: false })
      })
    ))
})

describe("MCP: failures, interruption and tool list changes", () => {
  it.live("a server that crashes mid-call gives an error result, is marked exited with a notice, and loses its tools", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-crash-")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [testServer("crashy"), testServer("steady")])
        expect((yield* hub.status("s1")).map((s) => s.state)).toEqual(["ready", "ready"])
        yield* hub.drainNotices("s1")

        const result = yield* callTool(hub, dir, "mcp__crashy__crash")
        expect(result.isError).toBe(true)
        expect(result.output).toContain('MCP server "crashy" exited during the call to crash')
        expect(result.output).toContain("about to crash: simulated failure")

        const [crashy, steady] = yield* hub.status("s1")
        expect(crashy).toMatchObject({ name: "crashy", state: "exited", tools: [] })
        expect(crashy?.message).toContain("the server exited")
        expect(steady).toMatchObject({ name: "steady", state: "ready" })
        const notices = yield* hub.drainNotices("s1")
        expect(notices).toHaveLength(1)
        expect(notices[0]).toMatchObject({ server: "crashy", state: "exited" })

        const names = (yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })).map((t) => t.definition.name)
        expect(names.some((n) => n.startsWith("mcp__crashy__"))).toBe(false)
        expect(yield* callTool(hub, dir, "mcp__steady__echo", { text: "still here" })).toMatchObject({ output: "still here", isError: false })
      })
    ))

  it.live("in a turn, a crash mid-call is an error result and the turn goes on to the model's final answer", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("mcp-crash-turn-")
      const userConfigDir = yield* tempDir("mcp-user-")
      const script = {
        responses: [{ chunks: [{ toolCall: { name: "mcp__t__crash", input: {}, id: "c1" } }] }, "The server crashed; moving on."]
      }
      yield* Effect.gen(function* () {
        const engine = yield* SessionEngine
        const hub = yield* McpHub
        const { header } = yield* engine.createSession({ cwd: dir, client: "test" })
        yield* hub.configureSession(header.sessionId, dir, [testServer("t")])
        const events = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "crash it" })))
        const completed = events.flatMap((e) => (e.type === "tool.completed" ? [e.payload] : []))
        expect(completed).toHaveLength(1)
        expect(completed[0]).toMatchObject({ toolCallId: "c1", isError: true })
        expect(completed[0]?.output).toContain("exited during the call")
        expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
        expect((yield* hub.status(header.sessionId))[0]?.state).toBe("exited")
      }).pipe(Effect.provide(mcpEngineLayer(script, [{ decision: "allow", scope: "once", by: "user" }], { userConfigDir })))
    }).pipe(Effect.scoped))

  it.live("a command that does not exist fails with a clear message; the other servers still work", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-missing-")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [{ name: "ghost", command: "no-such-mcp-server-command", args: [], env: {} }, testServer("t")])
        const statuses = yield* hub.status("s1")
        expect(statuses[0]).toEqual({
          name: "ghost",
          transport: "stdio",
          origin: "session",
          state: "failed",
          message: 'cannot run "no-such-mcp-server-command": command not found',
          tools: []
        })
        expect(statuses[1]).toMatchObject({ name: "t", state: "ready" })
        const notices = yield* hub.drainNotices("s1")
        expect(notices).toContainEqual({ server: "ghost", state: "failed", message: 'cannot run "no-such-mcp-server-command": command not found' })
        expect(yield* callTool(hub, dir, "mcp__t__echo", { text: "ok" })).toMatchObject({ output: "ok", isError: false })
      })
    ))

  it.live("a server that exits during start-up fails with what it wrote to stderr", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-exit-")
        const hub = yield* makeHub()
        const script = "process.stderr.write('boom: no API key configured\\n'); process.exit(2)"
        yield* hub.configureSession("s1", dir, [{ name: "early", command: process.execPath, args: ["-e", script], env: {} }])
        const [status] = yield* hub.status("s1")
        expect(status).toMatchObject({ name: "early", state: "failed" })
        expect(status?.message).toBe("exited during start-up; stderr:\nboom: no API key configured")
        expect(yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })).toEqual([])
      })
    ))

  it.live("a server that never answers initialize fails after its start-up timeout, and its process is stopped", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-hang-")
        const pidFile = join(dir, "pid")
        // Long enough for node to start and write its pid even on a loaded machine (else nothing would show it stopped).
        const hub = yield* makeHub({ startupTimeoutMs: 3_000 })
        const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid) + '\\n'); process.stdin.resume(); process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)`
        yield* hub.configureSession("s1", dir, [{ name: "silent", command: process.execPath, args: ["-e", script], env: {} }])
        const [status] = yield* hub.status("s1")
        expect(status).toMatchObject({ name: "silent", state: "failed", message: "did not start within 3 s" })
        const [pid] = yield* awaitPids(pidFile, 1)
        expect(pid !== undefined && isRunning(pid)).toBe(false)
      })
    ))

  it.live("a server of the user's that names an unset variable is not started, and says which", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-env-")
        const userConfigDir = yield* tempDir("mcp-user-")
        writeFileSync(
          join(userConfigDir, "mcp.json"),
          JSON.stringify({ mcpServers: { needy: { command: "node", env: { TOKEN: "${MCP_TEST_SURELY_UNSET_VARIABLE}" } } } })
        )
        const hub = yield* makeHub({ userConfigDir, env: {} })
        yield* hub.configureSession("s1", dir, [])
        expect(yield* hub.status("s1")).toEqual([
          {
            name: "needy",
            transport: "stdio",
            origin: "user",
            state: "failed",
            message: "env.TOKEN uses ${MCP_TEST_SURELY_UNSET_VARIABLE}, which is not set",
            tools: []
          }
        ])
      })
    ))

  it.live("interrupting a call cancels it on the server, promptly", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-cancel-")
        const events = join(dir, "events")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [testServer("t", { MCP_TEST_EVENTS_FILE: events })])
        const fiber = yield* Effect.fork(callTool(hub, dir, "mcp__t__wait"))
        yield* awaitLine(events, "wait started")
        yield* Fiber.interrupt(fiber)
        expect(yield* awaitLine(events, "wait cancelled")).toEqual(["wait started", "wait cancelled", ""])
        // The server is still there for the next call.
        expect(yield* callTool(hub, dir, "mcp__t__echo", { text: "after" })).toMatchObject({ output: "after", isError: false })
      })
    ))

  it.live("a call that outlives the server's timeout is cancelled and answered with an error", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-timeout-")
        const events = join(dir, "events")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [{ ...testServer("t", { MCP_TEST_EVENTS_FILE: events }), timeoutMs: 300 }])
        const result = yield* callTool(hub, dir, "mcp__t__wait")
        expect(result).toEqual({ output: 'MCP server "t" did not answer wait within 0.3 s; the call was cancelled', isError: true })
        yield* awaitLine(events, "wait cancelled")
      })
    ))

  it.live("a changed tool list is picked up: a tools_changed notice, and the next list has the new tool", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-grow-")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [testServer("t")])
        const before = (yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })).map((t) => t.definition.name)
        expect(before).not.toContain("mcp__t__late")
        yield* hub.drainNotices("s1")

        expect(yield* callTool(hub, dir, "mcp__t__grow", { name: "late" })).toMatchObject({ output: "added late" })
        const notices = yield* awaitNotice(hub, "s1", (n) => n.state === "tools_changed")
        expect(notices).toEqual([{ server: "t", state: "tools_changed", message: "+mcp__t__late" }])
        const after = (yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })).map((t) => t.definition.name)
        expect(after).toEqual([...before, "mcp__t__late"])
        expect((yield* hub.status("s1"))[0]?.tools).toEqual(after)
        expect(yield* callTool(hub, dir, "mcp__t__late")).toMatchObject({ output: "I am late", isError: false })
      })
    ))

  it.live("release stops a session's servers (the process is gone) and drops its notices", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-rel-")
        const pidFile = join(dir, "pids")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [testServer("a", { MCP_TEST_PID_FILE: pidFile }), testServer("b", { MCP_TEST_PID_FILE: pidFile })])
        yield* hub.status("s1")
        const pids = yield* awaitPids(pidFile, 2)
        expect(pids.every(isRunning)).toBe(true)
        yield* hub.release("s1")
        expect(pids.filter(isRunning)).toEqual([])
        expect(yield* hub.drainNotices("s1")).toEqual([])
        // A released session starts afresh when used again.
        yield* hub.configureSession("s1", dir, [testServer("a", { MCP_TEST_PID_FILE: pidFile })])
        expect((yield* hub.status("s1")).map((s) => s.state)).toEqual(["ready"])
        expect((yield* awaitPids(pidFile, 3)).length).toBe(3)
      })
    ))
})
