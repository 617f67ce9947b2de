import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const put = (root: string, path: string, text: string) => {
  mkdirSync(join(root, path, ".."), { recursive: true })
  writeFileSync(join(root, path), text)
}

describe("custom-agent agents list", { timeout: 60_000 }, () => {
  it("shows each agent with its source, description, tools, model and step limit; a malformed file is named on stderr", async () => {
    const project = temps.dir("agents-project-")
    const config = temps.dir("agents-config-")
    put(project, ".agents/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews a change\ntools: Read, Grep\nmaxSteps: 6\n---\nReview.\n")
    put(project, ".claude/agents/broken.md", "no front matter\n")
    put(config, "agents/writer.md", "---\nname: writer\ndescription: Writes docs\nmodel: claude-sonnet-4-5\n---\nWrite.\n")
    const result = await runCli(["agents", "list"], { env: { CUSTOM_AGENT_HOME: temps.dir("agents-home-"), CUSTOM_AGENT_CONFIG_HOME: config }, cwd: project })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      [
        "reviewer (project)",
        "  Reviews a change",
        "  tools: read_file, grep · max steps: 6",
        `  ${join(project, ".agents/agents/reviewer.md")}`,
        "writer (user)",
        "  Writes docs",
        "  tools: all of the parent's · model: anthropic/claude-sonnet-4-5",
        `  ${join(config, "agents/writer.md")}`,
        ""
      ].join("\n")
    )
    expect(result.stderr).toContain(`${join(project, ".claude/agents/broken.md")}: no front matter`)
  })

  it("reads YAML lists of tools, as Claude Code's community definitions write them; a malformed list is named with its file and fault", async () => {
    const project = temps.dir("agents-project-")
    const config = temps.dir("agents-config-")
    put(project, ".claude/agents/flow.md", "---\nname: flow\ndescription: Reads\ntools: [read_file]\n---\nRead.\n")
    put(project, ".claude/agents/block.md", "---\nname: block\ndescription: Greps\ntools:\n  - Read\n  - Grep\n---\nGrep.\n")
    put(project, ".claude/agents/open.md", "---\nname: open\ndescription: Broken\ntools: [read_file, grep\n---\nNo.\n")
    const result = await runCli(["agents", "list"], { env: { CUSTOM_AGENT_HOME: temps.dir("agents-home-"), CUSTOM_AGENT_CONFIG_HOME: config }, cwd: project })
    expect(result.code).toBe(0)
    expect(result.stdout).toContain("block (project)\n  Greps\n  tools: read_file, grep\n")
    expect(result.stdout).toContain("flow (project)\n  Reads\n  tools: read_file\n")
    expect(result.stdout).not.toContain("open")
    expect(result.stderr).toBe(`${join(project, ".claude/agents/open.md")}: line 4: the list is not closed by "]"\n`)
  })

  it("says where it looked when there are none", async () => {
    const config = temps.dir("agents-config-")
    const result = await runCli(["agents", "list"], { env: { CUSTOM_AGENT_HOME: temps.dir("agents-home-"), CUSTOM_AGENT_CONFIG_HOME: config }, cwd: temps.dir("agents-project-") })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(`no agents found (looked in the project's .agents/agents and .claude/agents, and in ${join(config, "agents")})\n`)
  })
})
