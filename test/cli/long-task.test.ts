import { afterAll, describe, expect, it } from "vitest"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const summary = "## Goal\nWrite the three notes.\n\n## Decisions and constraints\nPlain Markdown.\n\n## Progress\nNotes written so far.\n\n## Next step\nWrite the next note.\n\n## Open questions\nnone"

const todos = (done: number) =>
  ["Write note a", "Write note b", "Write note c"].map((content, i) => ({ content, status: i < done ? "completed" : i === done ? "in_progress" : "pending" }))

/** Turn i: update the task list, write note i, answer. */
const scriptFor = (i: number) => {
  const file = join(temp.dir("long-script-"), "script.json")
  const name = ["a", "b", "c"][i] ?? "x"
  writeFileSync(
    file,
    JSON.stringify({
      contextWindow: 6_000,
      maxOutputTokens: 500,
      summaries: [summary, summary, summary],
      responses: [
        { chunks: [{ toolCall: { name: "todo_write", input: { todos: todos(i) } } }, { toolCall: { name: "write_file", input: { path: `note-${name}.md`, content: `# Note ${name}\n` } } }] },
        `note ${name} written`
      ]
    })
  )
  return file
}

const prompt = (i: number) => `Note ${i}: ${"the background for this note, at some length ".repeat(60)}`

describe("a long task on the command line", () => {
  it("run shows the task list as it changes; sessions show --context shows each compaction, its summary, the files and the events it replaced", async () => {
    const home = temp.dir("long-home-")
    const workspace = temp.dir("long-ws-")
    const env = { CUSTOM_AGENT_HOME: home }
    const args = ["--sandbox", "off", "--approve", "allow-all"]
    const first = await runCli(["run", prompt(0), "--script", scriptFor(0), ...args], { env, cwd: workspace })
    expect(first.code).toBe(0)
    expect(first.stderr).toContain("☰ task list: 0/3 done, 1 in progress")
    expect(first.stderr).toContain("1. [~] Write note a (in progress)")
    const sessionId = /session (ses_\S+)/.exec(first.stderr)?.[1] ?? ""
    for (const i of [1, 2]) {
      const next = await runCli(["run", prompt(i), "--session", sessionId, "--script", scriptFor(i), ...args], { env, cwd: workspace })
      expect(next.code).toBe(0)
      expect(next.stderr).toContain(`☰ task list: ${i}/3 done`)
    }
    const show = await runCli(["sessions", "show", sessionId, "--context"], { env })
    expect(show.code).toBe(0)
    expect(show.stdout).toMatch(/── compaction #\d+ \(budget, in effect\)/)
    expect(show.stdout).toMatch(/replaced events #1–#\d+ \(1 turn\(s\)\); history \d+ → \d+ tokens; 1 summary request\(s\)/)
    expect(show.stdout).toContain("Goal:\n     Write the three notes.")
    expect(show.stdout).toContain("(from the log): note-a.md")
    expect(show.stdout).toContain("events it replaced:")
    // A replaced event keeps its number (#SEQ) in front of it.
    expect(show.stdout).toMatch(new RegExp(`│ #\\d+ › ${prompt(0).slice(0, 40).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`))
    expect(show.stdout).toContain("── what the model sees now")
    expect(show.stdout).toMatch(/task list \(task\.updated #\d+\), carried whole in every request:\n {3}1\. \[x\] Write note a \(completed\)\n {3}2\. \[x\] Write note b \(completed\)\n {3}3\. \[~\] Write note c \(in progress\)/)
  }, 60_000)
})
