import { afterAll, describe, expect, it } from "@effect/vitest"
import type { CommandSpec } from "../../src/cli/command-tree.js"
import { renderHelp, usageLine } from "../../src/cli/help.js"
import { program } from "../../src/cli/main.js"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const tree = program()
const find = (...path: ReadonlyArray<string>): CommandSpec =>
  path.reduce((command, name) => command.subcommands().find((c) => c.path.at(-1) === name) ?? command, tree)

// What @effect/cli's own help printed for every option; none of it says anything about ours.
const BOILERPLATE = ["A user-defined piece of text", "A true or false value", "This setting is optional", "One of the following", "--wizard", "--completions", "--log-level"]

describe("help, rendered from the command tree", () => {
  it("usage lines name the full command; required options and arguments appear, repeatable options do not look required", () => {
    expect(usageLine(find("mcp", "list"))).toBe("custom-agent mcp list [options]")
    // The prompt may come on stdin instead.
    expect(usageLine(find("run"))).toBe("custom-agent run [options] [<prompt>]")
    expect(usageLine(find("cluster", "migrate"))).toBe("custom-agent cluster migrate --database URL")
    expect(usageLine(find("sessions"))).toBe("custom-agent sessions <command>")
    const run = renderHelp(find("run"), { color: false, width: 80, version: "1.2.3" }).text
    expect(run).toMatch(/\n {2}--attach URI +Attach an MCP resource by URI: its text goes\n +with the prompt \(repeatable\)\n/)
  })

  it("colour only when asked for; within the width; no boilerplate", () => {
    for (const command of [tree, ...tree.subcommands(), ...tree.subcommands().flatMap((c) => c.subcommands())]) {
      const plain = renderHelp(command, { color: false, width: 80, version: "1.2.3" }).text
      expect(plain).not.toContain("\x1b")
      for (const line of plain.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80)
      for (const text of BOILERPLATE) expect(plain).not.toContain(text)
    }
    expect(renderHelp(tree, { color: true, width: 80, version: "1.2.3" }).text).toContain("\x1b[1mUsage:\x1b[0m")
  })

  it("the built CLI's --help on a pipe, or with NO_COLOR: plain text, the command's full name, its subcommands", { timeout: 60_000 }, async () => {
    const env = { CUSTOM_AGENT_HOME: temps.dir("help-home-"), NO_COLOR: undefined }
    const top = await runCli(["--help"], { env })
    expect(top.code).toBe(0)
    expect(top.stdout).toMatch(/^Usage: custom-agent \[options\]\n {7}custom-agent <command> \[options\]\n/)
    // With no command the program opens the interactive session: its options are the program's.
    expect(top.stdout).toMatch(/\n {2}-c, --continue +Resume this workspace's last session\n/)
    expect(top.stdout).toMatch(/\n {2}run +Run one turn/)
    const list = await runCli(["mcp", "list", "--help"], { env: { ...env, NO_COLOR: "1" } })
    expect(list.stdout).toMatch(/^Usage: custom-agent mcp list \[options\]\n/)
    const sessions = await runCli(["sessions", "-h"], { env })
    // The group runs bare too: the live view, with its options.
    expect(sessions.stdout).toContain("Usage: custom-agent sessions [options]\n       custom-agent sessions <command> [options]")
    expect(sessions.stdout).toMatch(/\n {2}list {5}List this workspace's sessions/)
    for (const result of [top, list, sessions]) {
      expect(result.stdout + result.stderr).not.toContain("\x1b")
      for (const text of BOILERPLATE) expect(result.stdout).not.toContain(text)
      expect(Math.max(...result.stdout.split("\n").map((line) => line.length))).toBeLessThanOrEqual(80)
    }
  })
})
