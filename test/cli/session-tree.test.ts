import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { underParents } from "../../src/domain/session-tree.js"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"
import { reviewerProject } from "../support/reviewer-project.js"

const temps = makeTemp()
afterAll(temps.cleanup)

describe("sessions list: subagents under their parents", () => {
  it("orders each child under its parent, grandchildren deeper; orphans and cycles stay listed once", () => {
    const rows = [
      { sessionId: "c1", parentSessionId: "p" },
      { sessionId: "q" },
      { sessionId: "g", parentSessionId: "c1" },
      { sessionId: "p" },
      { sessionId: "orphan", parentSessionId: "gone" },
      { sessionId: "x", parentSessionId: "y" },
      { sessionId: "y", parentSessionId: "x" }
    ]
    expect(underParents(rows).map(({ row, depth }) => `${depth}:${row.sessionId}`)).toEqual(["0:q", "0:p", "1:c1", "2:g", "0:orphan", "0:x", "1:y"])
  })

  it("the built CLI lists a subagent's session under the session that started it, and sessions show names its parent", { timeout: 60_000 }, async () => {
    const { project, script, env } = reviewerProject(temps.dir, "tree")
    const run = await runCli(["run", "--script", script, "get a review"], { env, cwd: project })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("Reviewed.")
    const list = await runCli(["sessions", "list"], { env, cwd: project })
    expect(list.code).toBe(0)
    const lines = list.stdout.split("\n").filter((line) => line.includes("ses_"))
    expect(lines).toHaveLength(2)
    expect(lines[0]).toMatch(/^ses_\S+ /)
    expect(lines[1]).toMatch(/^└ ses_\S+ .*reviewer: review it/)
    const parentId = lines[0]?.split(" ")[0] ?? ""
    const childId = lines[1]?.split(" ")[1] ?? ""
    const show = await runCli(["sessions", "show", childId], { env, cwd: project })
    expect(show.stdout).toContain(`subagent reviewer (level 1) of session ${parentId}`)
    expect(show.stdout).toContain("Looks fine.")
  })
})

describe("a subagent's steps as they happen", () => {
  it("run prints the subagent's tool calls under its line before its answer, and sessions show does the same from its log", { timeout: 60_000 }, async () => {
    const home = temps.dir("steps-home-")
    const project = temps.dir("steps-project-")
    mkdirSync(join(project, ".agents", "agents"), { recursive: true })
    writeFileSync(join(project, ".agents", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews\ntools: [read_file]\n---\nYou review.\n")
    writeFileSync(join(project, "notes.txt"), "all good\n")
    const script = join(project, "script.json")
    writeFileSync(
      script,
      JSON.stringify({
        responses: [{ chunks: [{ toolCall: { name: "task", input: { agent: "reviewer", prompt: "review notes.txt" } } }] }, "Reviewed."],
        agents: { reviewer: { responses: [{ chunks: [{ toolCall: { name: "read_file", input: { path: "notes.txt" } } }] }, "Looks fine."] } }
      })
    )
    const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: temps.dir("steps-config-") }
    const run = await runCli(["run", "--script", script, "get a review", "--mode", "accept-edits"], { env, cwd: project })
    expect(run.code, run.stderr).toBe(0)
    const started = run.stderr.indexOf("↳ subagent reviewer")
    const call = run.stderr.indexOf('  │ ⚙ read_file {"path":"notes.txt"}')
    const done = run.stderr.indexOf("  │   ✓ read_file")
    const answered = run.stderr.indexOf("answered · subagent reviewer")
    expect([started, call, done, answered].every((at) => at >= 0), run.stderr).toBe(true)
    expect(started < call && call < done && done < answered).toBe(true)

    const parentId = /session (ses_\w+)\s*$/.exec(run.stderr.trim())?.[1] ?? ""
    const show = await runCli(["sessions", "show", parentId], { env, cwd: project })
    expect(show.stdout).toMatch(/↳ subagent reviewer[^\n]*\n {2}│ ⚙ read_file \{"path":"notes.txt"\}\n {2}│ {3}✓ read_file \d+ ms\n/)
  })
})
