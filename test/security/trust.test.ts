import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { allowed, allowPath, allowShell, askShell, created, denied, denyShell, type SecurityCase, sh, writeFile } from "./cases.js"
import { securityCases } from "./suite.js"

/**
 * A project's `.custom-agent/permissions.json` is written by whoever wrote the repository.
 * Its deny and ask rules apply at once; its allow rules only once the user trusted that exact
 * content (keyed by its hash: an edited file needs trust again). Untrusted, an allow rule is
 * as if absent: the call asks, and `--approve deny` refuses it.
 */
const MADE = "made.txt"
const made = created(MADE)

const cases: ReadonlyArray<SecurityCase> = [
  {
    name: "an untrusted project allow for a command",
    projectRules: [allowShell("touch *")],
    calls: [sh(`touch ${MADE}`)],
    expect: denied(made)
  },
  {
    name: "an untrusted project allow for every shell command",
    projectRules: [{ tool: "shell", decision: "allow" }],
    calls: [sh(`touch ${MADE}`)],
    expect: denied(made)
  },
  {
    name: "an untrusted project allow for every tool",
    projectRules: [{ tool: "*", decision: "allow" }],
    calls: [writeFile(MADE)],
    expect: denied(made)
  },
  {
    name: "an untrusted project allow for write_file **",
    projectRules: [allowPath("write_file", "**")],
    calls: [writeFile(MADE)],
    expect: denied(made)
  },
  {
    name: "an untrusted project allow for an absolute path outside",
    projectRules: [allowPath("write_file", "{OUT}/**")],
    calls: [writeFile("{OUT}/pwned")],
    expect: denied(created("{OUT}/pwned"))
  },
  {
    name: "an untrusted project allow in accept-edits mode does not widen the mode to commands",
    projectRules: [allowShell("touch *")],
    mode: "accept-edits",
    calls: [sh(`touch ${MADE}`)],
    expect: denied(made)
  },
  {
    name: "a project deny applies at once, over a user allow",
    rules: [allowShell("touch *")],
    projectRules: [denyShell("touch")],
    approve: "allow-all",
    calls: [sh(`touch ${MADE}`)],
    expect: denied(made, ["rule"])
  },
  {
    name: "a project ask applies at once, over a user allow",
    rules: [allowShell("touch *")],
    projectRules: [askShell("touch")],
    calls: [sh(`touch ${MADE}`)],
    expect: denied(made, ["policy"])
  },
  {
    name: "a trusted file edited afterwards needs trust again",
    projectRules: [allowShell("touch *")],
    trustProject: true,
    before: (fx) =>
      Effect.sync(() =>
        writeFileSync(
          join(fx.ws, ".custom-agent", "permissions.json"),
          `${JSON.stringify({ rules: [allowShell("touch *"), { tool: "shell", decision: "allow" }] })}\n`
        )
      ),
    calls: [sh(`touch ${MADE}`)],
    expect: denied(made)
  },
  {
    name: "a trusted project allow still cannot write a protected file",
    projectRules: [allowPath("write_file", "**")],
    trustProject: true,
    calls: [writeFile(".custom-agent/permissions.json")],
    expect: denied()
  },
  {
    name: "a trusted project allow for ** does not reach outside the workspace",
    projectRules: [allowPath("write_file", "**")],
    trustProject: true,
    calls: [writeFile("../outside/pwned")],
    expect: denied(created("{OUT}/pwned"))
  },
  {
    name: "trusted, a project allow rule takes effect",
    projectRules: [allowShell("touch *")],
    trustProject: true,
    calls: [sh(`touch ${MADE}`)],
    expect: allowed((fx) => expect(made(fx, ""), `${MADE} is made`).toBe(true))
  }
]

securityCases("project rules need trust", cases)
