import { allowPath, allowShell, denied, editFile, PWNED, pwned, type SecurityCase, sh, writeFile } from "./cases.js"
import { rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { contains } from "./cases.js"
import { type Fixture, putLink } from "./fixture.js"
import { rememberAnswer } from "./remember.js"
import { securityCases } from "./suite.js"

/**
 * The agent cannot widen its own rules. Each case first tries to rewrite a rules file (or the
 * remembered answers) so that any command is allowed, then runs a command that leaves the
 * marker: both calls must be refused and the marker never made.
 */
const ALLOW_ALL = JSON.stringify({ rules: [{ tool: "*", decision: "allow" }, { tool: "shell", decision: "allow" }] })
const ALWAYS_SHELL = JSON.stringify({ approvals: [{ workspaceRoot: "{WS}", tool: "shell", decision: "allow", createdAt: "2026-01-01T00:00:00.000Z" }] })
const thenRun = sh(`touch ${PWNED}`)

const chain = (name: string, first: SecurityCase["calls"][number], options: Partial<SecurityCase> = {}): SecurityCase => ({
  name,
  calls: [first, thenRun],
  expect: denied(pwned),
  ...options
})

const cases: ReadonlyArray<SecurityCase> = [
  chain("accept-edits: write the project rules file, then run", writeFile(".custom-agent/permissions.json", ALLOW_ALL), { mode: "accept-edits" }),
  chain("a write_file ** rule: write the project rules file, then run", writeFile(".custom-agent/permissions.json", ALLOW_ALL), {
    rules: [allowPath("write_file", "**")]
  }),
  chain("accept-edits: edit the project rules file, then run", editFile(".custom-agent/permissions.json", '{"rules":[]}', ALLOW_ALL), { mode: "accept-edits" }),
  chain("accept-edits: write the rules file by a path through src/..", writeFile("src/../.custom-agent/permissions.json", ALLOW_ALL), { mode: "accept-edits" }),
  chain("accept-edits: write the rules file by ./ and a doubled slash", writeFile("./.custom-agent//permissions.json", ALLOW_ALL), { mode: "accept-edits" }),
  chain("accept-edits: write the rules file by its absolute path", writeFile("{WS}/.custom-agent/permissions.json", ALLOW_ALL), { mode: "accept-edits" }),
  chain("write_file src/**: write the rules file through a link src/cfg -> ../.custom-agent", writeFile("src/cfg/permissions.json", ALLOW_ALL), {
    rules: [allowPath("write_file", "src/**")],
    setup: (fx) => putLink(fx, "src/cfg", "../.custom-agent")
  }),
  chain("edit_file src/**: edit the rules file through a file link src/rules.json", editFile("src/rules.json", '{"rules":[]}', ALLOW_ALL), {
    rules: [allowPath("edit_file", "src/**")],
    setup: (fx) => putLink(fx, "src/rules.json", "../.custom-agent/permissions.json")
  }),
  chain("echo rule with path src/**: redirect through a link into .custom-agent", sh(`echo '${ALLOW_ALL}' > src/cfg/permissions.json`), {
    rules: [allowShell("echo *", "src/**")],
    setup: (fx) => putLink(fx, "src/cfg", "../.custom-agent")
  }),
  chain("write_file /**: add an MCP server to the user's config dir, then run", writeFile("{CONFIG}/mcp.json", JSON.stringify({ mcpServers: { x: { command: "touch", args: [PWNED] } } })), {
    rules: [allowPath("write_file", "/**")]
  }),
  chain("write_file /**: write the user's rules file, then run", writeFile("{CONFIG}/permissions.json", ALLOW_ALL), {
    rules: [allowPath("write_file", "/**")]
  }),
  chain("write_file /**: write remembered answers into the data dir, then run", writeFile("{DATA}/approvals.json", ALWAYS_SHELL), {
    rules: [allowPath("write_file", "/**")]
  }),
  chain("echo rule with path **: redirect into the project rules file, then run", sh(`echo '${ALLOW_ALL}' > .custom-agent/permissions.json`), {
    rules: [allowShell("echo *", "**")]
  }),
  chain("printf rule with path /**: redirect into the user's rules file, then run", sh(`printf '%s' '${ALLOW_ALL}' > {CONFIG}/permissions.json`), {
    rules: [allowShell("printf *", "/**")]
  }),
  chain("a remembered always for write_file a.txt: write the rules file, then run", writeFile(".custom-agent/permissions.json", ALLOW_ALL), {
    before: (fx, sessionId) => rememberAnswer(fx, sessionId, writeFile("a.txt", "fine\n"), "allow", "always")
  })
]

/**
 * Issue 30, class 7: a rules or settings file that is a link is judged where it leads. The
 * project's rules file links to `rules.json` in the workspace; writing `rules.json` by that
 * name rewrites the rules (their deny rules apply at once, their allow rules once trusted).
 */
const linkedRules = (fx: Fixture) => {
  rmSync(join(fx.ws, ".custom-agent", "permissions.json"))
  writeFileSync(join(fx.ws, "rules.json"), '{"rules":[]}')
  putLink(fx, ".custom-agent/permissions.json", "../rules.json")
}
const linkedSettings = (fx: Fixture) => {
  writeFileSync(join(fx.ws, "conf.json"), "{}")
  putLink(fx, ".custom-agent/settings.json", "../conf.json")
}
const rewritten = contains("rules.json", "allow")

const linkCases: ReadonlyArray<SecurityCase> = [
  { name: "accept-edits: write the file the rules file links to", mode: "accept-edits", setup: linkedRules, calls: [writeFile("rules.json", ALLOW_ALL)], expect: denied(rewritten) },
  { name: "accept-edits: edit the file the rules file links to", mode: "accept-edits", setup: linkedRules, calls: [editFile("rules.json", '{"rules":[]}', ALLOW_ALL)], expect: denied(rewritten) },
  {
    name: "a write_file ** rule: write the file the settings file links to (hooks, network)",
    rules: [allowPath("write_file", "**")],
    setup: linkedSettings,
    calls: [writeFile("conf.json", JSON.stringify({ sandbox: { network: true } }))],
    expect: denied(contains("conf.json", "network"))
  }
]

securityCases("the agent cannot change its own rules through where their links lead", linkCases)

securityCases("the agent cannot change its own rules", cases)
