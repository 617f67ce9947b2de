import { expect } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { eventsOf } from "../support/events.js"
import { allowed, allowPath, allowShell, editFile, npmTest, readFile, type SecurityCase, sh, writeFile } from "./cases.js"
import { type Fixture, gitRepo, putLink } from "./fixture.js"
import { securityCases } from "./suite.js"

/**
 * What the boundary must still let through: lines fully covered by allow rules run, allowed
 * by the rule, with their output; so a fix cannot pass the attack cases by refusing all.
 */
const printed = (text: string) => (_fx: Fixture, events: ReadonlyArray<AgentEvent>) => {
  const outputs = eventsOf(events, "tool.completed").map((e) => e.payload)
  expect(outputs.map((o) => o.isError), "no call failed").not.toContain(true)
  expect(outputs.map((o) => o.output).join("\n")).toContain(text)
}
const holds = (path: string, text: string) => (fx: Fixture, events: ReadonlyArray<AgentEvent>) => {
  printed("")(fx, events)
  const file = join(fx.ws, path)
  expect(existsSync(file) ? readFileSync(file, "utf8") : `(no ${path})`).toBe(text)
}
const both = (...checks: ReadonlyArray<(fx: Fixture, events: ReadonlyArray<AgentEvent>) => void>) => (fx: Fixture, events: ReadonlyArray<AgentEvent>) => {
  for (const check of checks) check(fx, events)
}

const run = (name: string, command: string, rules: NonNullable<SecurityCase["rules"]>, check = printed("ok")): SecurityCase => ({
  name,
  rules,
  calls: [sh(command)],
  expect: allowed(check)
})

const cases: ReadonlyArray<SecurityCase> = [
  run("npm test under npm test", "npm test", [npmTest]),
  run("npm test 2>&1 under npm test", "npm test 2>&1", [npmTest]),
  run("a quoted command word: \"npm\" test under npm test", '"npm" test', [npmTest]),
  run("a quoted argument: npm 'test' under npm test", "npm 'test'", [npmTest]),
  run("npm test > /dev/null under npm test", "npm test > /dev/null", [npmTest], printed("exit code 0")),
  run("npm test 2>/dev/null under npm test", "npm test 2>/dev/null", [npmTest]),
  run("npm test | tee out.log under rules for both", "npm test | tee out.log", [npmTest, allowShell("tee out.log")], both(printed("ok"), (fx) => expect(readFileSync(join(fx.ws, "out.log"), "utf8")).toContain("ok"))),
  run("npm test -- --silent under npm test *", "npm test -- --silent", [allowShell("npm test *")]),
  run("npm test under npm test * (no extra arguments)", "npm test", [allowShell("npm test *")]),
  run("npm test --silent under npm test:*", "npm test --silent", [allowShell("npm test:*")]),
  run("a list of covered commands", "echo one && echo ok; true", [allowShell("echo *"), allowShell("true")]),
  run("a pipe of covered commands", "printf 'b\\nok\\n' | sort | cat", [allowShell("printf *"), allowShell("sort"), allowShell("cat")]),
  run("a quoted ; is an argument, not a separator", "echo 'ok; not a command'", [allowShell("echo *")], printed("ok; not a command")),
  run("a quoted # is an argument, not a comment", 'echo "ok #1"', [allowShell("echo *")], printed("ok #1")),
  run("a trailing comment", "echo ok # says ok", [allowShell("echo *")]),
  run("a quoted here-doc into an allowed command", "cat <<'EOF'\nok $(not run)\nEOF", [allowShell("cat")], printed("ok $(not run)")),
  run("< from a file in the workspace", "cat < a.txt", [allowShell("cat")], printed("alpha")),
  run("> into the workspace under a rule with a path", "echo ok > out.txt", [allowShell("echo *", "out.txt")], holds("out.txt", "ok\n")),
  run(">> into logs/ under a rule with path logs/**", "mkdir -p logs && echo ok >> logs/run.log", [allowShell("mkdir -p logs"), allowShell("echo *", "logs/**")], holds("logs/run.log", "ok\n")),
  run("ls with flags under ls *", "ls -a", [allowShell("ls *")], printed("package.json")),
  { ...run("git status under git status", "git status", [allowShell("git status")], printed("On branch main")), setup: gitRepo },
  run("find * covers find with -exec (the rule covers the whole argv)", "find . -maxdepth 1 -name a.txt -exec cat {} \\;", [allowShell("find *")], printed("alpha")),
  { name: "write_file src/b.ts under write_file src/**", rules: [allowPath("write_file", "src/**")], calls: [writeFile("src/b.ts", "export const b = 2\n")], expect: allowed(holds("src/b.ts", "export const b = 2\n")) },
  { name: "edit_file src/a.ts under edit_file src/**", rules: [allowPath("edit_file", "src/**")], calls: [editFile("src/a.ts", "= 1", "= 2")], expect: allowed(holds("src/a.ts", "export const a = 2\n")) },
  { name: "write_file under an absolute rule outside the workspace", rules: [allowPath("write_file", "{OUT}/notes/**")], calls: [writeFile("{OUT}/notes/n.txt", "ok\n")], expect: allowed((fx) => expect(readFileSync(join(fx.outside, "notes", "n.txt"), "utf8")).toBe("ok\n")) },
  { name: "accept-edits writes inside the workspace", mode: "accept-edits", calls: [writeFile("src/c.ts", "c\n")], expect: allowed(holds("src/c.ts", "c\n"), ["mode"]) },
  { name: "read_file in the workspace by default", calls: [readFile("a.txt")], expect: allowed(printed("alpha"), ["default"]) },
  {
    name: "read_file through a link that stays in the workspace, by default",
    setup: (fx) => putLink(fx, "src/alink", "../a.txt"),
    calls: [readFile("src/alink")],
    expect: allowed(printed("alpha"), ["default"])
  }
]

securityCases("legitimate calls still run", cases)
