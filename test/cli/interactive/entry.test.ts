import { describe, expect, it } from "@effect/vitest"
import { checkArgv } from "../../../src/cli/argv-check.js"
import { isInteractiveArgv, resumeIdAsSession } from "../../../src/cli/interactive/entry-argv.js"
import { program } from "../../../src/cli/main.js"

const tree = program()
const names = tree.subcommands().map((command) => command.path.at(-1) ?? "")
const check = (line: string) => checkArgv(tree, resumeIdAsSession(line.split(" ").filter((w) => w !== ""), names))

describe("custom-agent with no command: the interactive session", () => {
  it("runs the program itself; --help still shows help, and a bare group its own", () => {
    expect(check("")).toMatchObject({ _tag: "Run", command: { path: ["custom-agent"] } })
    for (const line of ["-c", "--continue", "--resume", "-r", "--session ses_1", "--model scripted --mode plan", "--server http://127.0.0.1:1 --token-file t"]) {
      expect(check(line), line).toMatchObject({ _tag: "Run", command: { path: ["custom-agent"] } })
    }
    expect(check("--help")).toMatchObject({ _tag: "Help", command: { path: ["custom-agent"] } })
    expect(check("-c -h")).toMatchObject({ _tag: "Help", command: { path: ["custom-agent"] } })
    expect(check("mcp")).toMatchObject({ _tag: "Help", command: { path: ["custom-agent", "mcp"] } })
  })

  it("-r ID names the session to resume (as --session ID); a bare -r opens the picker; a command after it is a command", () => {
    expect(resumeIdAsSession(["-r", "abc"], names)).toEqual(["-r", "--session", "abc"])
    expect(resumeIdAsSession(["--resume", "abc", "--model", "scripted"], names)).toEqual(["--resume", "--session", "abc", "--model", "scripted"])
    expect(resumeIdAsSession(["-r"], names)).toEqual(["-r"])
    expect(resumeIdAsSession(["-r", "--model", "scripted"], names)).toEqual(["-r", "--model", "scripted"])
    expect(resumeIdAsSession(["run", "-r", "x"], names)).toEqual(["run", "-r", "x"])
    expect(check("-r ses_abc")).toMatchObject({ _tag: "Run", argv: ["-r", "--session", "ses_abc"] })
  })

  it("the session's options are refused before a command, which takes its own", () => {
    const checked = check("--model scripted run hi")
    expect(checked._tag).toBe("Usage")
    if (checked._tag === "Usage") expect(checked.message).toBe("--model is an option of custom-agent itself (the interactive session): give custom-agent run's options after it")
    expect(check("run --model scripted hi")._tag).toBe("Run")
    expect(check("--mode plna")).toMatchObject({ _tag: "Usage", message: "--mode must be one of default, plan, accept-edits, bypass, got plna; did you mean plan?" })
  })

  it("the launcher draws the session's first frame only for a command line that opens the session", () => {
    const opening = ["", "-c", "--continue", "-r", "-r ses_abc", "--resume ses_abc --model scripted", "--session ses_1", "--model scripted --mode plan", "--data-dir d --store jsonl --sandbox off --sandbox-network --no-host", "--server http://127.0.0.1:1 --token-file t", "--model=scripted", "--max-output-tokens 10 --thinking-budget 20 --script s.json"]
    for (const line of opening) {
      const words = line.split(" ").filter((w) => w !== "")
      expect(isInteractiveArgv(words), line).toBe(true)
      expect(checkArgv(tree, resumeIdAsSession(words, names)), line).toMatchObject({ command: { path: ["custom-agent"] } })
    }
    for (const line of ["run hi", "--help", "-h", "-c -h", "--version", "sessions", "--model", "--session --model x", "--bogus", "hello"]) {
      expect(isInteractiveArgv(line.split(" ").filter((w) => w !== "")), line).toBe(false)
    }
  })
})

