import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { runCli } from "../support/cli.js"
import { eventsOf, parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"
import { runOnTerminal } from "../support/terminal.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const call = (name: string, input: unknown, id: string) => ({ chunks: [{ toolCall: { name, input, id } }] })
// A plan holding what a terminal would obey: clear the screen, set the clipboard, return to the line's start.
const plan = "# Plan\n1. Write a.txt\x1b[2J\x1b]52;c;aGk=\x07\r2. Done"

const setup = (script: Script) => {
  const cwd = temp.dir("plan-cli-")
  writeFileSync(join(cwd, "script.json"), JSON.stringify(script))
  return { cwd, data: join(cwd, "data") }
}

/** The one session of a data directory, exported. */
const exported = async (cwd: string, data: string): Promise<ReadonlyArray<AgentEvent>> => {
  const listed = await runCli(["sessions", "list", "--data-dir", data, "--json"], { cwd })
  const [session] = JSON.parse(listed.stdout) as ReadonlyArray<{ readonly sessionId: string }>
  const out = await runCli(["sessions", "export", "--data-dir", data, session?.sessionId ?? ""], { cwd })
  return parseEventLines(out.stdout)
}

describe("custom-agent run in plan mode", () => {
  it("on a terminal: the plan is shown (sanitized), e approves it into accept-edits, and the turn's write runs without a question", { timeout: 90_000 }, async () => {
    const { cwd, data } = setup({ responses: [call("exit_plan_mode", { plan }, "call_plan"), call("write_file", { path: "a.txt", content: "hi\n" }, "call_write"), "Done."] })
    const { code, output } = await runOnTerminal(cwd, ["run", "--script", "script.json", "--data-dir", data, "--mode", "plan", "add a.txt"], "keep planning >", ["e\n"])
    expect(code, output).toBe(0)
    // Every line of the plan, before the question; what a terminal would obey is shown instead.
    expect(output).toContain("◆ plan proposed, to approve or send back:\n  │ # Plan\n  │ 1. Write a.txt^[[2J^[]52;c;aGk=^G^M2. Done\n")
    expect(output).not.toContain("\x1b[2J")
    expect(output).not.toContain("\x1b]52")
    expect(output.indexOf("◆ plan proposed")).toBeLessThan(output.indexOf("keep planning >"))
    expect(output).toContain("✓ plan approved by user, in the terminal: carried out in accept-edits mode")
    expect(output).toContain("mode: accept-edits (set by cli)")
    expect(output).toContain("✓ write_file a.txt")
    expect(output).not.toContain("allow once")
    expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hi\n")

    const log = await exported(cwd, data)
    expect(eventsOf(log, "plan.resolved").map((e) => e.payload)).toEqual([{ toolCallId: "call_plan", decision: "approved", by: "user", mode: "accept-edits", client: "cli" }])
    expect(eventsOf(log, "session.mode_changed").map((e) => e.payload)).toEqual([
      { mode: "plan", by: "cli" },
      { mode: "accept-edits", by: "cli" }
    ])
    // sessions show replays the same plan and its approval.
    const listed = await runCli(["sessions", "show", "--data-dir", data, log[0]?.sessionId ?? ""], { cwd })
    expect(listed.stdout).toContain("  │ 1. Write a.txt^[[2J^[]52;c;aGk=^G^M2. Done")
    expect(listed.stdout).toContain("✓ plan approved by user, in the terminal: carried out in accept-edits mode")
  })

  it("on a terminal: n and a note send the plan back; the model gets the note and the session stays in plan mode", { timeout: 90_000 }, async () => {
    const { cwd, data } = setup({ responses: [call("exit_plan_mode", { plan: "# Plan\n1. Write a.txt" }, "call_plan"), "I will revise it."] })
    const { code, output } = await runOnTerminal(cwd, ["run", "--script", "script.json", "--data-dir", data, "--mode", "plan", "add a.txt"], "keep planning >", ["n\nadd tests first\n"])
    expect(code, output).toBe(0)
    expect(output).toContain("what should change?")
    expect(output).toContain("✗ plan sent back by user, in the terminal (the session stays in plan mode): add tests first")
    expect(output).not.toContain("mode: accept-edits")
    const log = await exported(cwd, data)
    expect(eventsOf(log, "plan.resolved")[0]?.payload).toEqual({ toolCallId: "call_plan", decision: "rejected", by: "user", client: "cli", note: "add tests first" })
    expect(eventsOf(log, "tool.completed")[0]?.payload.output).toContain("Their note:\nadd tests first")
    expect(eventsOf(log, "session.mode_changed").map((e) => e.payload.mode)).toEqual(["plan"])
  })

  it("headless: without a terminal, and with --approve allow-all, the plan is not approved and the output says so", { timeout: 90_000 }, async () => {
    const { cwd, data } = setup({ responses: [call("exit_plan_mode", { plan: "# Plan\n1. Write a.txt" }, "call_plan"), "Here is the plan."] })
    const bare = await runCli(["run", "--script", "script.json", "--data-dir", data, "--mode", "plan", "add a.txt"], { cwd })
    expect(bare.code, bare.stderr).toBe(0)
    expect(bare.stderr).toContain("  │ 1. Write a.txt")
    expect(bare.stderr).toContain("✗ plan not approved by policy (the session stays in plan mode): no terminal to ask on, and only a person can approve a plan")
    const policy = await runCli(["run", "--script", "script.json", "--data-dir", data, "--mode", "plan", "--approve", "allow-all", "add a.txt"], { cwd })
    expect(policy.code, policy.stderr).toBe(0)
    expect(policy.stderr).toContain("✗ plan not approved by policy (the session stays in plan mode): --approve allow-all never approves a plan")
    expect(existsSync(join(cwd, "a.txt"))).toBe(false)
  })
})
