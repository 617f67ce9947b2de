import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { isRunning } from "../support/process-check.js"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** A project with this `.custom-agent/mcp.json` text, and fresh data and config directories. */
const project = (mcpJson: string) => {
  const cwd = temps.dir("mcp-run-project-")
  mkdirSync(join(cwd, ".custom-agent"))
  writeFileSync(join(cwd, ".custom-agent", "mcp.json"), mcpJson)
  return { cwd, env: { CUSTOM_AGENT_HOME: temps.dir("mcp-run-home-"), CUSTOM_AGENT_CONFIG_HOME: temps.dir("mcp-run-config-") } }
}

describe("run with MCP servers configured", { timeout: 60_000 }, () => {
  it("a malformed mcp.json is one line naming the file and what is wrong (its notice, before the first step); the run goes on without its servers", async () => {
    for (const [text, problem] of [
      ['{"mcpServers": ', "not valid JSON"],
      ['{"mcpServers": {"bad": {"url": 12}}}', "mcpServers.bad.url: Expected string, actual 12"]
    ] as const) {
      const { cwd, env } = project(text)
      const result = await runCli(["run", "hello", "--model", "scripted", "--sandbox", "off"], { cwd, env })
      expect(result.code).toBe(0)
      expect(result.stdout).toContain('You said: "hello"')
      const lines = result.stderr.trimEnd().split("\n")
      expect(lines).toHaveLength(2)
      expect(lines[0]).toMatch(new RegExp(`^  mcp ${join(cwd, ".custom-agent", "mcp.json")}: failed \\(${problem}.*; its MCP servers are left out\\)$`))
      expect(lines[1]).toMatch(/^session ses_/)
    }
  })

  it("a server slow to start holds the first step only for the start-up wait (MCP_TIMEOUT), is named in one line, and is left behind by none", async () => {
    const pidFile = join(temps.dir("mcp-run-pids-"), "pid")
    // A server that never answers: waiting for it would take its whole start-up timeout.
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`
    const { cwd, env } = project(JSON.stringify({ mcpServers: { mute: { command: process.execPath, args: ["-e", script], startupTimeout: 20_000 } } }))
    expect((await runCli(["trust"], { cwd, env })).code).toBe(0)
    const answer = join(temps.dir("mcp-run-script-"), "script.json")
    writeFileSync(answer, JSON.stringify({ responses: [{ chunks: [{ text: "hi" }] }] }))
    const started = Date.now()
    const result = await runCli(["run", "hello", "--sandbox", "off", "--script", answer], { cwd, env: { ...env, MCP_TIMEOUT: "1000" } })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("hi\n")
    expect(result.stderr.split("\n").filter((line) => line.includes("mute"))).toEqual([
      "  mcp mute: slow (not ready after 1 s; its tools join a later step once it is ready)"
    ])
    expect(Date.now() - started).toBeLessThan(15_000)
    // It had started (the step waited for it), and was stopped with the run.
    const pid = Number(readFileSync(pidFile, "utf8"))
    expect(isRunning(pid)).toBe(false)
  })

  it("an untrusted project's servers are skipped, not started, and the run says which", async () => {
    const marker = join(temps.dir("mcp-run-marker-"), "started")
    const script = `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x'); setInterval(() => {}, 1000)`
    const { cwd, env } = project(JSON.stringify({ mcpServers: { eager: { command: process.execPath, args: ["-e", script] } } }))
    // The answer takes 1.5 s: time enough for a server that would start to start (as in the test above).
    const answer = join(temps.dir("mcp-run-script-"), "script.json")
    writeFileSync(answer, JSON.stringify({ responses: [{ chunks: [{ text: "hi" }], delayMs: 1500 }] }))
    const result = await runCli(["run", "hello", "--sandbox", "off", "--script", answer], { cwd, env })
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("custom-agent: the project's MCP servers are skipped, not started, because its configuration is not trusted")
    expect(result.stderr).toContain(`  "eager" runs ${JSON.stringify([process.execPath, "-e", script])}`)
    expect(existsSync(marker)).toBe(false)
  })
})
