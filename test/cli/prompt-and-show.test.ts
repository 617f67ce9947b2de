import { afterAll, describe, expect, it } from "@effect/vitest"
import { runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const answerOf = (stdout: string) =>
  parseEventLines(stdout)
    .map((e) => (e.type === "model.delta" ? e.payload.text : ""))
    .join("")

describe("run takes its prompt from stdin", { timeout: 120_000 }, () => {
  it("piped with no prompt argument, or with -: read whole, trimmed", async () => {
    const env = { CUSTOM_AGENT_HOME: temps.dir("stdin-home-") }
    const piped = await runCli(["run", "--json"], { env, input: "summarize\nthese two lines\n" })
    expect(piped.code, piped.stderr).toBe(0)
    expect(parseEventLines(piped.stdout).find((e) => e.type === "user.message")?.payload).toMatchObject({ content: "summarize\nthese two lines" })
    expect(answerOf(piped.stdout)).toContain('You said: "summarize these two lines"')
    const dash = await runCli(["run", "-", "--json"], { env, input: "from the dash" })
    expect(dash.code, dash.stderr).toBe(0)
    expect(answerOf(dash.stdout)).toContain('You said: "from the dash"')
  })

  it("an empty or oversized prompt on stdin is a usage error, and starts nothing", async () => {
    const home = temps.dir("stdin-home-")
    const env = { CUSTOM_AGENT_HOME: home }
    for (const args of [["run"], ["run", "-"]]) {
      const empty = await runCli(args, { env, input: " \n\n" })
      expect(empty.code).toBe(2)
      expect(empty.stderr).toBe(
        "custom-agent run: the prompt on stdin is empty: give it as an argument, or pipe some text in\n(see custom-agent run --help)\n"
      )
    }
    const huge = await runCli(["run", "-"], { env, input: "x".repeat(1024 * 1024 + 1) })
    expect(huge.code).toBe(2)
    expect(huge.stderr).toContain("custom-agent run: the prompt on stdin is larger than 1 MiB")
    expect((await runCli(["sessions", "list"], { env })).stdout).not.toContain("ses_")
  })
})

describe("sessions show", { timeout: 120_000 }, () => {
  it("starts each event's first line with its number, which rewind and fork take as --at", async () => {
    const env = { CUSTOM_AGENT_HOME: temps.dir("show-home-") }
    const run = await runCli(["run", "hello", "--json"], { env })
    expect(run.code, run.stderr).toBe(0)
    const events = parseEventLines(run.stdout)
    const sessionId = events[0]?.sessionId ?? ""
    const show = await runCli(["sessions", "show", sessionId], { env })
    expect(show.code, show.stderr).toBe(0)
    const byType = (type: string) => events.find((e) => e.type === type)?.sequence
    const lines = show.stdout.split("\n")
    expect(lines[0]).toMatch(new RegExp(`^#1 session ${sessionId}`))
    expect(lines).toContain(`#${byType("user.message")} › hello`)
    expect(lines.some((line) => line.startsWith(`#${byType("model.delta")} You said: "hello"`))).toBe(true)
    expect(lines.some((line) => line.startsWith(`#${byType("turn.completed")} ── done`))).toBe(true)
    const fork = await runCli(["sessions", "fork", sessionId, "--at", String(byType("turn.completed"))], { env })
    expect(fork.code, fork.stderr).toBe(0)
  })
})
