import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { SessionEngine } from "../../../src/core/SessionEngine.js"
import type { McpHubShape, McpServerConfig } from "../../../src/services/McpHub.js"
import type { SandboxShape } from "../../../src/services/Sandbox.js"
import { eventsOf } from "../../support/events.js"
import { mcpEngineLayer } from "../../support/mcp-engine.js"
import { makeHub } from "../../support/mcp-fixtures.js"
import { bwrapInstalled, type Dirs, hostListener, makeDirs, realSandbox, sandboxSuite, USER_RULES } from "../../support/sandbox.js"
import { contextFor } from "../tools/workspace-fixture.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href

/** test/support/mcp-sandbox-server.ts: tools that write anywhere and connect to the host. */
const probeServer: McpServerConfig = {
  name: "probe",
  command: process.execPath,
  args: ["--import", tsxLoader, join(root, "test/support/mcp-sandbox-server.ts")],
  env: {}
}

/** Calls one of the probe server's tools as an allowed call would run. */
const callProbe = (hub: McpHubShape, dirs: Dirs, tool: string, input: Record<string, unknown>) =>
  Effect.gen(function* () {
    const tools = yield* hub.source.tools({ sessionId: "s1", workspaceRoot: dirs.workspace })
    const found = tools.find((t) => t.definition.name === `mcp__probe__${tool}`)
    if (found === undefined) return yield* Effect.dieMessage(`no ${tool} tool; status ${JSON.stringify(yield* hub.status("s1"))}`)
    const prepared = yield* found.prepare(input, contextFor(dirs.workspace))
    return { sandbox: prepared.sandbox, result: yield* prepared.execute }
  })

const hubIn = (dirs: Dirs, sandbox: SandboxShape) =>
  Effect.gen(function* () {
    const hub = yield* makeHub({ sandbox })
    yield* hub.configureSession("s1", dirs.workspace, [probeServer])
    return hub
  })

describe.skipIf(!bwrapInstalled)(sandboxSuite("a stdio MCP server in the sandbox"), () => {
  it.live("writes only inside its workspace: not outside, not .custom-agent/, not the config directory", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const hub = yield* hubIn(dirs, yield* realSandbox(dirs))

      const outside = yield* callProbe(hub, dirs, "write", { path: join(dirs.outside, "x.txt"), text: "pwned" })
      expect(outside.sandbox).toEqual({ _tag: "bwrap", network: false })
      expect(outside.result.isError).toBe(true)
      expect(outside.result.output).toContain("EROFS")
      expect(existsSync(join(dirs.outside, "x.txt"))).toBe(false)

      const rules = yield* callProbe(hub, dirs, "write", { path: join(dirs.workspace, ".custom-agent/permissions.json"), text: "{}" })
      expect(rules.result.isError).toBe(true)
      expect(existsSync(join(dirs.workspace, ".custom-agent/permissions.json"))).toBe(false)

      const config = yield* callProbe(hub, dirs, "write", { path: join(dirs.configDir, "permissions.json"), text: "pwned" })
      expect(config.result.isError).toBe(true)
      expect(readFileSync(join(dirs.configDir, "permissions.json"), "utf8")).toBe(USER_RULES)

      const inside = yield* callProbe(hub, dirs, "write", { path: join(dirs.workspace, "made.txt"), text: "ok" })
      expect(inside.result).toMatchObject({ isError: false })
      expect(readFileSync(join(dirs.workspace, "made.txt"), "utf8")).toBe("ok")
    }).pipe(Effect.scoped))

  it.live("cannot connect to a listener on the host's 127.0.0.1", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const listener = yield* hostListener
      const hub = yield* hubIn(dirs, yield* realSandbox(dirs))
      const { result } = yield* callProbe(hub, dirs, "connect", { port: listener.port })
      expect(result.isError).toBe(true)
      expect(result.output).toContain("ECONNREFUSED")
      expect(listener.connections()).toBe(0)
    }).pipe(Effect.scoped))

  it.live("connects when the network is opened", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const listener = yield* hostListener
      const hub = yield* hubIn(dirs, yield* realSandbox(dirs, { network: true }))
      const { sandbox, result } = yield* callProbe(hub, dirs, "connect", { port: listener.port })
      expect(sandbox).toEqual({ _tag: "bwrap", network: true })
      expect(result).toMatchObject({ isError: false, output: "hello from the host\n" })
      expect(listener.connections()).toBe(1)
    }).pipe(Effect.scoped))

  it.live("tool.started records the server's sandbox profile", () =>
    Effect.gen(function* () {
      const dirs = yield* makeDirs()
      const sandbox = yield* realSandbox(dirs)
      writeFileSync(join(dirs.configDir, "mcp.json"), JSON.stringify({ mcpServers: { probe: { command: probeServer.command, args: probeServer.args } } }))
      const script = {
        responses: [{ chunks: [{ toolCall: { id: "c1", name: "mcp__probe__write", input: { path: join(dirs.workspace, "a.txt"), text: "a" } } }] }, "done"]
      }
      const events = yield* Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: dirs.workspace, client: "test" })
        return Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "write" })))
      }).pipe(
        Effect.provide(
          mcpEngineLayer(script, [{ decision: "allow", scope: "once", by: "user" }], { userConfigDir: dirs.configDir, sandbox })
        )
      )
      expect(eventsOf(events, "tool.started").map((e) => e.payload)).toEqual([
        { toolCallId: "c1", name: "mcp__probe__write", sandbox: { _tag: "bwrap", network: false } }
      ])
      expect(readFileSync(join(dirs.workspace, "a.txt"), "utf8")).toBe("a")
    }).pipe(Effect.scoped))
})
