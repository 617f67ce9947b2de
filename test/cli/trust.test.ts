import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Script } from "../../src/layers/model/scripted.js"
import { runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** A workspace whose project rules allow `echo trusted`, and a script that runs it. */
const setup = () => {
  const root = temps.dir("cli-trust-")
  const cwd = join(root, "work")
  const configDir = join(root, "config")
  mkdirSync(join(cwd, ".custom-agent"), { recursive: true })
  mkdirSync(configDir, { recursive: true })
  writeFileSync(join(cwd, ".custom-agent", "permissions.json"), JSON.stringify({ rules: [{ tool: "shell", command: "echo trusted", decision: "allow" }] }))
  const script: Script = { responses: [{ chunks: [{ toolCall: { name: "shell", input: { command: "echo trusted" } } }] }, "Done."] }
  const scriptFile = join(root, "script.json")
  writeFileSync(scriptFile, JSON.stringify(script))
  const data = join(root, "data")
  return { cwd, scriptFile, data, env: { CUSTOM_AGENT_HOME: data, CUSTOM_AGENT_CONFIG_HOME: configDir } }
}

const decisions = (stdout: string) =>
  parseEventLines(stdout).flatMap((e) => (e.type === "permission.resolved" ? [`${e.payload.decision} by ${e.payload.by}`] : []))

describe("custom-agent trust", () => {
  it("a project's allow rules apply only after `custom-agent trust`; an edit needs trust again", { timeout: 90_000 }, async () => {
    const { cwd, scriptFile, data, env } = setup()
    const run = () => runCli(["run", "go", "--approve", "deny", "--script", scriptFile, "--json", "--sandbox", "off"], { cwd, env })

    const untrusted = await run()
    expect(untrusted.code).toBe(0)
    expect(decisions(untrusted.stdout)).toEqual(["deny by policy"])
    const recorded = parseEventLines(untrusted.stdout).find((e) => e.type === "permission.project_rules")
    expect(recorded?.payload).toMatchObject({ allowRules: 1, trusted: false })

    const status = await runCli(["trust", "--status"], { cwd, env })
    expect(status.code).toBe(0)
    expect(status.stdout).toContain('allow shell command "echo trusted"')
    expect(status.stdout).toContain("not trusted")

    const trust = await runCli(["trust"], { cwd, env })
    expect(trust.code).toBe(0)
    expect(trust.stdout).toContain("trusted")
    expect(JSON.parse(readFileSync(join(data, "trusted-projects.json"), "utf8")).trusted).toHaveLength(1)

    const trusted = await run()
    expect(decisions(trusted.stdout)).toEqual(["allow by rule"])
    expect(parseEventLines(trusted.stdout).find((e) => e.type === "permission.project_rules")?.payload).toMatchObject({ trusted: true, trustedBy: "user" })

    writeFileSync(join(cwd, ".custom-agent", "permissions.json"), JSON.stringify({ rules: [{ tool: "shell", command: "echo *", decision: "allow" }] }))
    const edited = await run()
    expect(decisions(edited.stdout)).toEqual(["deny by policy"])
  })

  it("a project without a rules file has nothing to trust: one line and a non-zero exit", { timeout: 30_000 }, async () => {
    const root = temps.dir("cli-trust-none-")
    const result = await runCli(["trust"], { cwd: root, env: { CUSTOM_AGENT_HOME: join(root, "data"), CUSTOM_AGENT_CONFIG_HOME: join(root, "config") } })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain("has no project configuration to trust")
    expect(result.stderr).not.toContain("permissions.json does not exist")
  })

  it("names the files that are there: a project with only .claude/settings.json hooks is shown that file, not a rules file it lacks", { timeout: 30_000 }, async () => {
    const root = temps.dir("cli-trust-claude-")
    const cwd = join(root, "work")
    mkdirSync(join(cwd, ".claude", "hooks"), { recursive: true })
    writeFileSync(join(cwd, ".claude", "hooks", "note.sh"), "#!/bin/sh\nexit 0\n")
    writeFileSync(
      join(cwd, ".claude", "settings.json"),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "command", command: "sh .claude/hooks/note.sh" }] }] } })
    )
    const env = { CUSTOM_AGENT_HOME: join(root, "data"), CUSTOM_AGENT_CONFIG_HOME: join(root, "config") }
    const status = await runCli(["trust", "--status"], { cwd, env })
    expect(status.code, status.stderr).toBe(0)
    const first = status.stdout.split("\n")[0] ?? ""
    expect(first).toContain(join(cwd, ".claude", "settings.json"))
    expect(first).not.toContain("permissions.json")
    expect(status.stdout).toContain("hook ")
  })
})
