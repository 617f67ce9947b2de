import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const put = (root: string, path: string, text: string) => {
  mkdirSync(join(root, path, ".."), { recursive: true })
  writeFileSync(join(root, path), text)
}

/** A project, the user's config directory and Claude Code's folder, none of the machine's. */
const setup = () => {
  const project = temps.dir("commands-project-")
  const config = temps.dir("commands-config-")
  const claude = temps.dir("commands-claude-")
  const env = { CUSTOM_AGENT_HOME: temps.dir("commands-home-"), CUSTOM_AGENT_CONFIG_HOME: config, CLAUDE_CONFIG_DIR: claude }
  return { project, config, claude, env }
}

describe("custom-agent commands list", { timeout: 60_000 }, () => {
  it("shows each command with its source and namespace, description, hint and file, what it does not apply, and the broken files on stderr", async () => {
    const { project, config, claude, env } = setup()
    put(
      project,
      ".claude/commands/review.md",
      "---\ndescription: Review a pull request\nargument-hint: [pr-number]\nallowed-tools: Bash(git diff:*)\n---\nReview PR #$1.\n"
    )
    put(project, ".custom-agent/commands/ops/deploy.md", "Deploy to $1.\n")
    put(project, ".claude/commands/broken.md", "---\ndescription: never closed\n")
    put(config, "commands/notes.md", "---\ndescription: \"Bell\\a and \\e[31mred\"\n---\nNotes.\n")
    put(claude, "commands/mine.md", "Mine.\n")
    const result = await runCli(["commands", "list"], { env, cwd: project })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      [
        "/deploy (project:ops)",
        "  Deploy to $1.",
        `  ${join(project, ".custom-agent/commands/ops/deploy.md")}`,
        "/mine (user)",
        "  Mine.",
        `  ${join(claude, "commands/mine.md")}`,
        "/notes (user)",
        // Content reaches the terminal with its controls shown, never obeyed.
        "  Bell^G and ^[[31mred",
        `  ${join(config, "commands/notes.md")}`,
        "/review (project)",
        "  Review a pull request",
        "  arguments: [pr-number]",
        "  not applied: allowed-tools",
        `  ${join(project, ".claude/commands/review.md")}`,
        ""
      ].join("\n")
    )
    expect(result.stderr).toBe(`${join(project, ".claude/commands/broken.md")}: the front matter is not closed by a "---" line\n`)
  })

  it("says where it looked when there are none", async () => {
    const { project, config, claude, env } = setup()
    const result = await runCli(["commands", "list"], { env, cwd: project })
    expect(result.code).toBe(0)
    expect(result.stdout).toBe(
      `no commands found (looked in the project's .custom-agent/commands and .claude/commands, and in ${join(config, "commands")} and ${join(claude, "commands")})\n`
    )
  })

  it("`run` sends `/name args` as the command's body, recorded with the command", async () => {
    const { project, env } = setup()
    put(project, ".claude/commands/greet.md", "Say hello to $ARGUMENTS.\n")
    const script = join(temps.dir("commands-script-"), "script.json")
    writeFileSync(script, JSON.stringify({ responses: ["Hello."] }))
    const ran = await runCli(["run", "--script", script, "--json", "/greet Ada"], { env, cwd: project })
    expect(ran.code).toBe(0)
    const message = parseEventLines(ran.stdout).find((event) => event.type === "user.message")
    expect(message?.type === "user.message" ? message.payload : undefined).toMatchObject({
      content: "Say hello to Ada.",
      mode: "queue",
      command: { name: "greet", arguments: "Ada", source: "project", path: join(project, ".claude/commands/greet.md") }
    })
  })
})
