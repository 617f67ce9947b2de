import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { trustFile } from "../../../src/app/locations.js"
import * as Permissions from "../../../src/layers/permission/engine.js"
import { tempDir, testServer } from "../../support/mcp-fixtures.js"

const root = fileURLToPath(new URL("../../../", import.meta.url))

/** Runs `custom-agent mcp list --cwd <project>` with `configHome` as the user's configuration directory (and `dataHome`, where trust is kept, as its data directory). */
const mcpList = (project: string, configHome: string, dataHome?: string) =>
  Effect.async<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = execFile(
      process.execPath,
      ["--import", pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href, join(root, "test/support/mcp-cli-main.ts"), "mcp", "list", "--cwd", project],
      { cwd: project, env: { ...process.env, CUSTOM_AGENT_CONFIG_HOME: configHome, CUSTOM_AGENT_HOME: dataHome ?? join(configHome, "data") }, timeout: 60_000 },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr }))
    )
    return Effect.sync(() => child.kill())
  })

const write = (file: string, content: unknown) => {
  mkdirSync(join(file, ".."), { recursive: true })
  writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content))
}

describe("custom-agent mcp list", () => {
  it.live("shows project and user servers with their status and tools (a project's once trusted), and exits 0 when one failed", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const project = yield* tempDir("mcp-cli-project-")
        const configHome = yield* tempDir("mcp-cli-user-")
        const dataHome = yield* tempDir("mcp-cli-data-")
        const server = testServer("unused")
        if (!("command" in server)) return yield* Effect.dieMessage("a stdio server")
        write(join(project, ".custom-agent", "mcp.json"), { mcpServers: { tester: { command: server.command, args: server.args } } })
        write(join(configHome, "mcp.json"), { mcpServers: { ghost: { command: "no-such-mcp-server-command" } } })

        const untrusted = yield* mcpList(project, configHome, dataHome)
        expect(untrusted.stdout).toBe(
          [
            "ghost (user, stdio): failed",
            '  cannot run "no-such-mcp-server-command": command not found',
            "tester (project, stdio): skipped",
            "  not started: the project's configuration is not trusted (review it with custom-agent trust)",
            ""
          ].join("\n")
        )

        const permissions = yield* Permissions.make({ approvalsFile: join(dataHome, "approvals.json"), trustFile: trustFile(dataHome) })
        const status = yield* permissions.projectTrust(project)
        yield* permissions.trustProject(project, status.sha256 ?? "", "test")
        const { code, stdout } = yield* mcpList(project, configHome, dataHome)
        expect(stdout).toBe(
          [
            "ghost (user, stdio): failed",
            '  cannot run "no-such-mcp-server-command": command not found',
            "tester (project, stdio): ready, 4 tools",
            "  mcp__tester__echo",
            "  mcp__tester__crash",
            "  mcp__tester__wait",
            "  mcp__tester__grow",
            ""
          ].join("\n")
        )
        expect(code).toBe(0)
      })
    ))

  it.live("a disabled server is listed as disabled, and nothing is started when all are", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const project = yield* tempDir("mcp-cli-project-")
        const configHome = yield* tempDir("mcp-cli-user-")
        write(join(project, ".custom-agent", "mcp.json"), { mcpServers: { quiet: { command: "no-such-mcp-server-command", disabled: true } } })
        write(join(configHome, "mcp.json"), { mcpServers: { remote: { url: "https://example.com/mcp", disabled: true } } })
        const { code, stdout } = yield* mcpList(project, configHome)
        expect(stdout).toBe(["remote (user, http): disabled", "quiet (project, stdio): disabled", ""].join("\n"))
        expect(code).toBe(0)
      })
    ))

  it.live("a malformed mcp.json is an error naming the file, with a non-zero exit", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const project = yield* tempDir("mcp-cli-project-")
        const configHome = yield* tempDir("mcp-cli-user-")
        write(join(project, ".custom-agent", "mcp.json"), { mcpServers: { bad: { url: 12 } } })
        const { code, stdout, stderr } = yield* mcpList(project, configHome)
        expect(code).not.toBe(0)
        expect(stdout).toBe("")
        expect(stderr).toContain(`${join(project, ".custom-agent", "mcp.json")}: mcpServers.bad.url: Expected string, actual 12`)
      })
    ))

  it.live("with nothing configured it says where it looked", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const project = yield* tempDir("mcp-cli-project-")
        const configHome = yield* tempDir("mcp-cli-user-")
        const { code, stdout } = yield* mcpList(project, configHome)
        expect(code).toBe(0)
        expect(stdout).toBe(`no MCP servers configured (looked in ${join(configHome, "mcp.json")} and ${join(project, ".custom-agent", "mcp.json")})\n`)
      })
    ))
})
