import { describe, expect, it } from "@effect/vitest"
import { checkArgv } from "../../src/cli/argv-check.js"
import type { CommandSpec } from "../../src/cli/command-tree.js"
import { program } from "../../src/cli/main.js"
import { closest } from "../../src/cli/suggest.js"

const tree = program()

const check = (line: string) => checkArgv(tree, line.split(" ").filter((w) => w !== ""))

const usage = (line: string) => {
  const checked = check(line)
  if (checked._tag !== "Usage") throw new Error(`${line}: expected a usage error, got ${checked._tag}`)
  return { command: checked.command.path.join(" "), message: checked.message }
}

const walk = (command: CommandSpec): ReadonlyArray<CommandSpec> => [command, ...command.subcommands().flatMap(walk)]

describe("the command line, checked against the command tree before @effect/cli parses it", () => {
  it("a mistyped option is named, with the option meant", () => {
    expect(usage("run --sesion x hi")).toEqual({ command: "custom-agent run", message: "unknown option --sesion; did you mean --session?" })
    expect(usage("run hi --sess x").message).toBe("unknown option --sess; did you mean --session?")
    expect(usage("run hi --frobnicate").message).toBe("unknown option --frobnicate")
  })

  it("a value outside a choice names the option, every accepted value and the near miss", () => {
    expect(usage("run hi --mode plna").message).toBe("--mode must be one of default, plan, accept-edits, bypass, got plna; did you mean plan?")
    expect(usage("run hi --store=sqlit").message).toBe("--store must be one of sqlite, jsonl, got sqlit; did you mean sqlite?")
  })

  it("a subcommand is looked up among its parent's: sessions lst means sessions list", () => {
    const { command, message } = usage("sessions lst")
    expect(command).toBe("custom-agent sessions")
    expect(message).toBe("unknown command lst; did you mean list? (custom-agent sessions has: list, show, rename, archive, delete, export, import, rewind, redo, fork)")
    expect(usage("rn hi").message).toContain("did you mean run?")
  })

  it("a whole number where one is due, a value where one is due, the arguments a command takes", () => {
    expect(usage("serve --port abc").message).toBe("--port must be a whole number, got abc")
    expect(usage("run hi --session").message).toBe("--session needs a value: --session ID")
    expect(usage("sessions show").message).toBe("missing <session-id> (The session (see custom-agent sessions list))")
    expect(usage("run hello world").message).toContain("quote a text that has spaces")
    expect(usage("cluster migrate").message).toBe("missing --database URL")
  })

  it("help and the version are answered here, for the command the line names; a bare group shows its help", () => {
    expect(check("mcp list --help")).toMatchObject({ _tag: "Help", command: { path: ["custom-agent", "mcp", "list"] } })
    expect(check("run --sesion x -h")).toMatchObject({ _tag: "Help", command: { path: ["custom-agent", "run"] } })
    expect(check("memory")).toMatchObject({ _tag: "Help", command: { path: ["custom-agent", "memory"] } })
    expect(check("--version")).toEqual({ _tag: "Version" })
  })

  it("a correct line runs: options before or after the prompt, --name=value, a flag with a boolean word, -- before a prompt like an option", () => {
    for (const line of ["run hi --mode plan --json", "run --max-steps=3 hi", "run hi --json false", "run -- --not-an-option", "sessions list --store jsonl"]) {
      expect(check(line)._tag, line).toBe("Run")
    }
  })

  it("a bare - as the prompt reaches @effect/cli after --, since it stops reading options there; other lines go as given", () => {
    expect(check("run - --json --mode plan")).toMatchObject({ _tag: "Run", argv: ["run", "--json", "--mode", "plan", "--", "-"] })
    expect(check("run --session - hi")).toMatchObject({ _tag: "Run", argv: ["run", "--session", "-", "hi"] })
    expect(check("run hi --json")).toMatchObject({ _tag: "Run", argv: ["run", "hi", "--json"] })
  })

  it("@effect/cli's wizard, completions and log level are not offered", () => {
    for (const option of ["--wizard", "--completions", "--log-level"]) expect(check(`run hi ${option}`)._tag).toBe("Usage")
  })

  it("every command and every option says what it is for", () => {
    for (const command of walk(tree)) {
      expect(command.description, command.path.join(" ")).not.toBe("")
      for (const option of command.options) expect(option.description, `${command.path.join(" ")} ${option.names.join(",")}`).not.toBe("")
    }
  })
})

describe("suggestions", () => {
  it("a near miss within a typo's distance, a transposition counting as one; nothing when nothing is close", () => {
    expect(closest("plna", ["default", "plan", "bypass"])).toBe("plan")
    expect(closest("lst", ["list", "show", "export", "import"])).toBe("list")
    expect(closest("xyz", ["list", "show"])).toBeUndefined()
    expect(closest("--sess", ["--session", "--json"])).toBe("--session")
  })
})
