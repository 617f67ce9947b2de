import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Stream } from "effect"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionEngine } from "../../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../../src/domain/events.js"
import { sandboxOff } from "../../../src/layers/sandbox/off.js"
import * as LazyMcp from "../../../src/layers/tools/mcp-lazy.js"
import { DEFAULT_STARTUP_WAIT_MS, readStartupWait } from "../../../src/layers/tools/mcp-wait.js"
import { McpHub, type McpServerConfig } from "../../../src/services/McpHub.js"
import { eventsOf } from "../../support/events.js"
import { lazyMcpEngineLayer } from "../../support/mcp-engine.js"
import { filesystemServer, tempDir, testServer } from "../../support/mcp-fixtures.js"

/** A server entry as `mcp.json` writes it. */
const entry = (config: McpServerConfig) => ("command" in config ? { command: config.command, args: config.args, env: config.env } : {})

/** A user configuration directory whose `mcp.json` holds these servers, and a workspace. */
const configured = (servers: Record<string, McpServerConfig>) =>
  Effect.gen(function* () {
    const dir = yield* tempDir("mcp-first-")
    const userConfigDir = join(dir, "config")
    const workspace = join(dir, "work")
    mkdirSync(userConfigDir)
    mkdirSync(workspace)
    if (Object.keys(servers).length > 0) {
      const mcpServers = Object.fromEntries(Object.entries(servers).map(([name, config]) => [name, entry(config)]))
      writeFileSync(join(userConfigDir, "mcp.json"), JSON.stringify({ mcpServers }))
    }
    return { dir, userConfigDir, workspace }
  })

/** The event types and MCP notices of a turn, in order, up to its first `context.built`. */
const beforeFirstRequest = (events: ReadonlyArray<AgentEvent>) => events.slice(0, events.findIndex((e) => e.type === "context.built") + 1)

describe("MCP servers and a session's first model step", () => {
  it.live("the first step of a fresh session is offered a configured server's tools, and a call reads the file", () =>
    Effect.gen(function* () {
      const { userConfigDir, workspace } = yield* configured({})
      writeFileSync(join(workspace, "notes.txt"), "buy oat milk\n")
      writeFileSync(join(userConfigDir, "mcp.json"), JSON.stringify({ mcpServers: { fs: entry(filesystemServer("fs", workspace)) } }))
      const script = {
        responses: [{ chunks: [{ toolCall: { name: "mcp__fs__read_text_file", input: { path: join(workspace, "notes.txt") }, id: "r1" } }] }, "It says to buy oat milk."]
      }
      const run = Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
        const events = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "read notes.txt with the fs server's tool" })))
        const first = beforeFirstRequest(events)
        expect(eventsOf(first, "mcp.notice").map((e) => [e.payload.server, e.payload.state])).toEqual([["fs", "ready"]])
        expect(eventsOf(first, "context.built")[0]?.payload.tools).toContain("mcp__fs__read_text_file")
        expect(eventsOf(events, "tool.completed").map((e) => e.payload)).toEqual([expect.objectContaining({ toolCallId: "r1", isError: false, output: "buy oat milk\n" })])
        expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
      })
      yield* run.pipe(Effect.provide(lazyMcpEngineLayer(script, [{ decision: "allow", scope: "once", by: "user" }], { userConfigDir })))
    }).pipe(Effect.scoped)
  )

  it.live("a server slow to start holds the first step only for the wait, is named in a notice before it, and is offered once ready", () =>
    Effect.gen(function* () {
      const { dir, userConfigDir, workspace } = yield* configured({})
      const gate = join(dir, "gate")
      writeFileSync(join(userConfigDir, "mcp.json"), JSON.stringify({ mcpServers: { slow: entry(testServer("slow", { MCP_TEST_GATE_FILE: gate })) } }))
      const run = Effect.gen(function* () {
        const engine = yield* SessionEngine
        const hub = yield* McpHub
        const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
        const sessionId = header.sessionId
        const turn = (content: string) => Effect.map(Stream.runCollect(engine.runTurn({ sessionId, content })), Chunk.toArray)

        const first = beforeFirstRequest(yield* turn("hello"))
        expect(eventsOf(first, "mcp.notice").map((e) => e.payload)).toEqual([
          { server: "slow", state: "slow", message: "not ready after 0.3 s; its tools join a later step once it is ready" }
        ])
        expect(eventsOf(first, "context.built")[0]?.payload.tools.some((name) => name.startsWith("mcp__slow__"))).toBe(false)

        writeFileSync(gate, "")
        // Status waits for every server to finish starting: the server is ready now.
        expect((yield* hub.status(sessionId)).map((s) => [s.name, s.state])).toEqual([["slow", "ready"]])
        const later = beforeFirstRequest(yield* turn("again"))
        expect(eventsOf(later, "mcp.notice").map((e) => [e.payload.server, e.payload.state])).toEqual([["slow", "ready"]])
        expect(eventsOf(later, "context.built")[0]?.payload.tools).toContain("mcp__slow__echo")
      })
      yield* run.pipe(Effect.provide(lazyMcpEngineLayer({ responses: ["hi", "hi again"] }, [], { userConfigDir, startupWaitMs: 300 })))
    }).pipe(Effect.scoped)
  )

  it.live("with no server configured, the step does not wait at all", () =>
    Effect.gen(function* () {
      const { userConfigDir, workspace } = yield* configured({})
      // A wait this long would time the test out: the turn must not wait for anything.
      const hub = yield* LazyMcp.make({ userConfigDir, sandbox: sandboxOff, startupWaitMs: 600_000 })
      expect(yield* Effect.timeoutOption(hub.awaitServers({ sessionId: "s1", workspaceRoot: workspace }), "5 seconds")).toEqual(Option.some(undefined))
      expect(yield* hub.drainNotices("s1")).toEqual([])

      const run = Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
        const events = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "hello" })))
        expect(eventsOf(events, "mcp.notice")).toEqual([])
        expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
      })
      yield* run.pipe(
        Effect.timeout("10 seconds"),
        Effect.provide(lazyMcpEngineLayer({ responses: ["hi"] }, [], { userConfigDir, startupWaitMs: 600_000 }))
      )
    }).pipe(Effect.scoped)
  )

  it.live("a project's servers waiting for trust are neither started nor waited for", () =>
    Effect.gen(function* () {
      const { dir, userConfigDir, workspace } = yield* configured({})
      const pids = join(dir, "pids")
      mkdirSync(join(workspace, ".custom-agent"))
      writeFileSync(
        join(workspace, ".custom-agent", "mcp.json"),
        JSON.stringify({ mcpServers: { held: entry(testServer("held", { MCP_TEST_PID_FILE: pids, MCP_TEST_GATE_FILE: join(dir, "never") })) } })
      )
      const hub = yield* LazyMcp.make({ userConfigDir, sandbox: sandboxOff, startupWaitMs: 600_000 })
      expect(yield* Effect.timeoutOption(hub.awaitServers({ sessionId: "s1", workspaceRoot: workspace }), "10 seconds")).toEqual(Option.some(undefined))
      expect((yield* hub.drainNotices("s1")).map((n) => [n.server, n.state])).toEqual([["held", "skipped"]])
      expect(existsSync(pids)).toBe(false)
    }).pipe(Effect.scoped)
  )
})

describe("the start-up wait's setting", () => {
  it.effect("MCP_TIMEOUT (ms) wins over settings.json's mcp.startupWait, which wins over 10 s; an unusable value falls through", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("mcp-wait-")
      expect(yield* readStartupWait(dir, {})).toBe(DEFAULT_STARTUP_WAIT_MS)
      writeFileSync(join(dir, "settings.json"), JSON.stringify({ model: "someone else's key", mcp: { startupWait: 2500 } }))
      expect(yield* readStartupWait(dir, {})).toBe(2500)
      expect(yield* readStartupWait(dir, { MCP_TIMEOUT: "0" })).toBe(0)
      expect(yield* readStartupWait(dir, { MCP_TIMEOUT: "ten seconds" })).toBe(2500)
      writeFileSync(join(dir, "settings.json"), JSON.stringify({ mcp: { startupWait: -1 } }))
      expect(yield* readStartupWait(dir, {})).toBe(DEFAULT_STARTUP_WAIT_MS)
    }).pipe(Effect.scoped)
  )
})
