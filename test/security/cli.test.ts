import { afterAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { allowed, allowPath, allowShell, contains, created, deniedByRule, denied, deniedNoControl, denyShell, npmTest, PWNED, pwned, type SecurityCase, sh, writeFile } from "./cases.js"
import { gitRepo, putLink, removeFixtures, snapshot } from "./fixture.js"
import { assertControl, assertOutcome, prepareFixture, scriptPath } from "./run-case.js"

/**
 * A few cases end to end through the built CLI, as the repro ran them:
 * `custom-agent run --script ... --approve deny` in the workspace, with the rules in the
 * user's config directory (`CUSTOM_AGENT_CONFIG_HOME`) and `HOME` in the fixture.
 */
const cases: ReadonlyArray<SecurityCase> = [
  { name: "the issue's repro: npm test #'\\nid > outside\\n#'", rules: [npmTest], calls: [sh(`npm test #'\nid > ${PWNED}\n#'`)], expect: denied(pwned) },
  { name: "npm test > ~/pwned", rules: [npmTest], calls: [sh("npm test > ~/pwned")], expect: denied(created("{HOME}/pwned")) },
  { name: "deny git push: git -C . push under --approve allow-all", rules: [denyShell("git push")], approve: "allow-all", setup: gitRepo, calls: [sh("git -C . push origin HEAD:main")], expect: deniedByRule(created("{OUT}/remote.git/refs/heads/main")) },
  {
    name: "--mode accept-edits: rewrite the project rules, then run",
    mode: "accept-edits",
    calls: [writeFile(".custom-agent/permissions.json", JSON.stringify({ rules: [{ tool: "shell", decision: "allow" }] })), sh(`touch ${PWNED}`)],
    expect: denied(pwned)
  },
  {
    name: "write_file src/** through a link out",
    rules: [allowPath("write_file", "src/**")],
    setup: (fx) => putLink(fx, "src/link", "../../outside"),
    calls: [writeFile("src/link/target.txt")],
    expect: denied(contains("{OUT}/target.txt", "pwned"))
  },
  { name: "--mode plan: an allowed command", mode: "plan", rules: [npmTest], calls: [sh("npm test")], expect: deniedNoControl(["mode"]) },
  { name: "legitimate: npm test 2>&1", rules: [npmTest], calls: [sh("npm test 2>&1")], expect: allowed() },
  {
    name: "legitimate: npm test | tee out.log",
    rules: [npmTest, allowShell("tee out.log")],
    calls: [sh("npm test | tee out.log")],
    expect: allowed((fx) => expect(readFileSync(join(fx.ws, "out.log"), "utf8")).toContain("ok"))
  }
]

describe("through the built CLI (--approve)", () => {
  afterAll(removeFixtures)

  for (const c of cases) {
    it(c.name, { timeout: 60_000 }, async () => {
      assertControl(c)
      const fx = prepareFixture(c)
      const before = snapshot(fx.root)
      const args = ["run", "go", "--script", scriptPath(fx), "--approve", c.approve ?? "deny", "--json", "--data-dir", fx.data]
      const result = await runCli([...args, ...(c.mode === undefined ? [] : ["--mode", c.mode])], {
        cwd: fx.ws,
        env: { CUSTOM_AGENT_CONFIG_HOME: fx.config, HOME: fx.home }
      })
      expect(result.code, result.stderr).toBe(0)
      assertOutcome(c, fx, { events: parseEventLines(result.stdout), before, after: snapshot(fx.root) })
    })
  }
})
