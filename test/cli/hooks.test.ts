import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Script } from "../../src/layers/model/scripted.js"
import { runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { writeScript, writeSettings } from "../support/hooks-fixture.js"
import { bwrapInstalled, sandboxSuite } from "../support/sandbox.js"

const roots: Array<string> = []
afterAll(() => {
  for (const dir of roots) rmSync(dir, { recursive: true, force: true })
})

/** A project with a hook of its own (and one in .claude/settings.json), and a user with one. */
const setup = () => {
  // Under /var/tmp, not /tmp (private inside the sandbox): a write the sandbox let through to the config directory would show here.
  const root = realpathSync(mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : "/tmp", "cli-hooks-")))
  roots.push(root)
  const cwd = join(root, "work")
  const configDir = join(root, "config")
  const data = join(root, "data")
  mkdirSync(cwd, { recursive: true })
  mkdirSync(configDir, { recursive: true })
  const outside = join(configDir, "escaped")
  const projectHook = writeScript(
    join(cwd, ".custom-agent", "hooks", "mark.sh"),
    `#!/bin/sh\ncat > /dev/null\necho ran > "$CLAUDE_PROJECT_DIR/marked"\necho escaped > ${outside} 2>/dev/null\nexit 0\n`
  )
  writeSettings(join(cwd, ".custom-agent", "settings.json"), { PreToolUse: [{ matcher: "Read", hooks: [{ type: "command", command: projectHook }] }] })
  writeSettings(join(cwd, ".claude", "settings.json"), {
    Notification: [{ hooks: [{ type: "command", command: "notify-send hi" }] }],
    Stop: [{ hooks: [{ type: "command", command: "true", timeout: 5 }] }]
  })
  writeSettings(join(configDir, "settings.json"), { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo user context" }] }] })
  writeFileSync(join(cwd, "a.txt"), "a\n")
  const script: Script = { responses: [{ chunks: [{ toolCall: { name: "read_file", input: { path: "a.txt" } } }] }, "Done."] }
  const scriptFile = join(root, "script.json")
  writeFileSync(scriptFile, JSON.stringify(script))
  return { cwd, scriptFile, outside, projectHook, env: { CUSTOM_AGENT_HOME: data, CUSTOM_AGENT_CONFIG_HOME: configDir } }
}

describe("custom-agent hooks list", () => {
  it("shows every configured hook, where it comes from and whether it runs; trust turns the project's on", { timeout: 90_000 }, async () => {
    const { cwd, env, projectHook } = setup()
    const before = await runCli(["hooks", "list"], { cwd, env })
    expect(before.code).toBe(0)
    expect(before.stdout).toContain("UserPromptSubmit: echo user context\n  user · ")
    expect(before.stdout).toContain(`PreToolUse [Read]: ${projectHook}\n  project · ${join(cwd, ".custom-agent", "settings.json")} · timeout 60 s · not trusted`)
    expect(before.stdout).toContain(`Stop: true\n  claude · ${join(cwd, ".claude", "settings.json")} · timeout 5 s · not trusted`)
    expect(before.stderr).toContain("Notification is not run (not an event this agent has)")

    const trust = await runCli(["trust"], { cwd, env })
    expect(trust.code).toBe(0)
    expect(trust.stdout).toContain(`hook PreToolUse [Read]: ${projectHook}`)
    expect(trust.stdout).toContain("hook Stop: true")

    const after = await runCli(["hooks", "list", "--json"], { cwd, env })
    const listing = JSON.parse(after.stdout)
    expect(listing.hooks.map((hook: { source: string; trusted: boolean }) => [hook.source, hook.trusted])).toEqual([
      ["user", true],
      ["project", true],
      ["claude", true]
    ])
  })

  it("a malformed settings file is named, and its hooks do not run", { timeout: 90_000 }, async () => {
    const { cwd, env } = setup()
    writeFileSync(join(cwd, ".claude", "settings.json"), '{ "hooks": { "Stop": "not a list" } }')
    const listed = await runCli(["hooks", "list"], { cwd, env })
    expect(listed.code).toBe(0)
    expect(listed.stderr).toContain(join(cwd, ".claude", "settings.json"))
    expect(listed.stderr).toContain("its hooks do not run")
  })
})

describe(sandboxSuite("hooks in a real run"), () => {
  it.skipIf(!bwrapInstalled)("a trusted project hook runs inside the sandbox: it writes the workspace, nothing outside it", { timeout: 90_000 }, async () => {
    const { cwd, env, scriptFile, outside } = setup()
    const run = () => runCli(["run", "go", "--script", scriptFile, "--json", "--sandbox", "on"], { cwd, env })
    const untrusted = await run()
    expect(untrusted.code).toBe(0)
    expect(existsSync(join(cwd, "marked"))).toBe(false)
    expect(parseEventLines(untrusted.stdout).filter((e) => e.type === "hook.ran").map((e) => e.payload.source)).toEqual(["user"])

    expect((await runCli(["trust"], { cwd, env })).code).toBe(0)
    const trusted = await run()
    expect(trusted.code).toBe(0)
    const runs = parseEventLines(trusted.stdout).flatMap((e) => (e.type === "hook.ran" ? [e.payload] : []))
    expect(runs.map((run) => `${run.source} ${run.event} ${run.exitCode}`)).toEqual(["user UserPromptSubmit 0", "project PreToolUse 0", "claude Stop 0"])
    expect(readFileSync(join(cwd, "marked"), "utf8")).toBe("ran\n")
    expect(existsSync(outside)).toBe(false)
  })
})
