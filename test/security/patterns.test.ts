import { expect } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { eventsOf } from "../support/events.js"
import { allowed, type Call, readFile, type SecurityCase } from "./cases.js"
import type { Fixture } from "./fixture.js"
import { securityCases } from "./suite.js"

/**
 * Patterns the agent matches come from a hostile model (grep's pattern and glob, list_files'
 * pattern) and from a cloned repository (rules files, `.gitignore`, hook matchers). Each case
 * below names one that a backtracking matcher (JavaScript's RegExp, and the picomatch and
 * ignore packages that compile to it) takes minutes to hours on, with the agent's one thread
 * blocked all the while: no other session, request or signal is served. The turn must end
 * (the call decided and run); without the fix it does not end within the test's time limit.
 */

const ranClean = (text: string) => (_fx: Fixture, events: ReadonlyArray<AgentEvent>) => {
  const outputs = eventsOf(events, "tool.completed").map((e) => e.payload)
  expect(outputs.map((o) => o.isError), "no call failed").not.toContain(true)
  expect(outputs.map((o) => o.output).join("\n")).toContain(text)
}

const LONG_NAME = "a".repeat(200)
const STARS = `*${"a*".repeat(12)}c`
const grep = (input: Record<string, unknown>): Call => ({ tool: "grep", input })
const listFiles = (input: Record<string, unknown>): Call => ({ tool: "list_files", input })

const deepTree = (fx: Fixture) => {
  const deep = join(fx.ws, ...Array.from({ length: 100 }, () => "a"))
  mkdirSync(deep, { recursive: true })
  writeFileSync(join(deep, "b"), "deep\n")
}

const cases: ReadonlyArray<SecurityCase> = [
  {
    name: "the model's grep pattern ^(a+)+$ against a line of forty a's and a b",
    setup: (fx) => writeFileSync(join(fx.ws, "as.txt"), `${"a".repeat(40)}b\n${"a".repeat(8)}\n`),
    calls: [grep({ pattern: "^(a+)+$", path: "as.txt" })],
    expect: allowed(ranClean(`as.txt:2:${"a".repeat(8)}`), ["default"])
  },
  {
    name: "the model's grep glob with twelve stars against a long file name",
    setup: (fx) => writeFileSync(join(fx.ws, LONG_NAME), "needle\n"),
    calls: [grep({ pattern: "needle", glob: STARS })],
    expect: allowed(ranClean("No matches"), ["default"])
  },
  {
    name: "the model's list_files pattern with twelve stars against a long file name",
    setup: (fx) => writeFileSync(join(fx.ws, LONG_NAME), "x\n"),
    calls: [listFiles({ pattern: STARS })],
    expect: allowed(ranClean(""), ["default"])
  },
  {
    name: "a project deny rule whose path glob has twelve stars, judged on a long file name",
    projectRules: [{ tool: "read_file", decision: "deny", path: STARS }],
    setup: (fx) => writeFileSync(join(fx.ws, LONG_NAME), "content\n"),
    calls: [readFile(LONG_NAME)],
    expect: allowed(ranClean("content"), ["default"])
  },
  {
    name: "a cloned .gitignore line with eight globstars, on a walk a hundred folders deep",
    setup: (fx) => {
      deepTree(fx)
      writeFileSync(join(fx.ws, ".gitignore"), `${"**/a/".repeat(8)}c\n`)
    },
    calls: [listFiles({ path: "a" })],
    expect: allowed(ranClean("/b"), ["default"])
  }
]

securityCases("patterns from a model or a repository are matched in linear time", cases)
