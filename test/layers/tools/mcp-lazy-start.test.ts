import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { sandboxOff } from "../../../src/layers/sandbox/off.js"
import * as LazyMcp from "../../../src/layers/tools/mcp-lazy.js"
import * as Mcp from "../../../src/layers/tools/mcp.js"
import type { McpServerConfig } from "../../../src/services/McpHub.js"
import { awaitPids } from "../../support/process-check.js"
import { tempDir, testServer, trustedProject } from "../../support/mcp-fixtures.js"

/** A project whose .custom-agent/mcp.json holds these servers (given the file their pids go to), and an empty user configuration. Not trusted yet. */
const project = (servers: (pids: string) => Record<string, unknown>) =>
  Effect.gen(function* () {
    const dir = yield* tempDir("mcp-start-")
    const pids = join(dir, "pids")
    mkdirSync(join(dir, "work", ".custom-agent"), { recursive: true })
    mkdirSync(join(dir, "config"))
    writeFileSync(join(dir, "work", ".custom-agent", "mcp.json"), JSON.stringify({ mcpServers: servers(pids) }))
    return { workspaceRoot: join(dir, "work"), userConfigDir: join(dir, "config"), pids }
  })

const stdio = (config: McpServerConfig) => ("command" in config ? { command: config.command, args: config.args, env: config.env } : {})

describe("MCP servers as the app runs them: a request does not wait for their start", () => {
  it.live("the first listing answers at once, without them; they start in the background and are listed once ready", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dirs = yield* project((pids) => ({ t: stdio(testServer("t", { MCP_TEST_PID_FILE: pids })) }))
        const projectTrust = yield* trustedProject(dirs.workspaceRoot)
        const hub = yield* LazyMcp.make({ userConfigDir: dirs.userConfigDir, sandbox: sandboxOff, projectTrust })
        const scope = { sessionId: "s1", workspaceRoot: dirs.workspaceRoot }
        const started = Date.now()
        expect(yield* hub.source.tools(scope)).toEqual([])
        expect(yield* hub.instructions("s1")).toEqual([])
        // The test server takes about a second to start: the two listings did not wait for it.
        expect(Date.now() - started).toBeLessThan(LazyMcp.START_DELAY_MS + 400)
        yield* awaitPids(dirs.pids, 1)
        expect((yield* hub.status("s1")).map((s) => [s.name, s.state])).toEqual([["t", "ready"]])
        expect((yield* hub.source.tools(scope)).map((t) => t.definition.name)).toContain("mcp__t__echo")
        expect(yield* hub.drainNotices("s1")).toEqual([{ server: "t", state: "ready", message: "4 tools" }])
      })
    ))

  it.live("servers a client gave the session (ACP's session/new) are waited for, as before", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dirs = yield* project(() => ({}))
        const hub = yield* LazyMcp.make({ userConfigDir: dirs.userConfigDir, sandbox: sandboxOff })
        yield* hub.configureSession("s1", dirs.workspaceRoot, [testServer("given")])
        const tools = yield* hub.source.tools({ sessionId: "s1", workspaceRoot: dirs.workspaceRoot })
        expect(tools.map((t) => t.definition.name)).toContain("mcp__given__echo")
      })
    ))

  it.live("a disabled server is never started, and even a trusted project's entry of the same name does not stand in for it", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dirs = yield* project((pids) => ({ off: stdio(testServer("off", { MCP_TEST_PID_FILE: pids })) }))
        writeFileSync(
          join(dirs.userConfigDir, "mcp.json"),
          JSON.stringify({ mcpServers: { off: { ...stdio(testServer("off", { MCP_TEST_PID_FILE: dirs.pids })), disabled: true } } })
        )
        const projectTrust = yield* trustedProject(dirs.workspaceRoot)
        const hub = yield* Mcp.make({ userConfigDir: dirs.userConfigDir, sandbox: sandboxOff, projectTrust })
        yield* hub.configureSession("s1", dirs.workspaceRoot, [])
        expect((yield* hub.status("s1")).map((s) => [s.name, s.origin, s.state])).toEqual([["off", "project", "skipped"]])
        expect(existsSync(dirs.pids)).toBe(false)
      })
    ))
})
