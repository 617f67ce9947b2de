import { afterAll, describe, expect, it } from "@effect/vitest"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** `custom-agent <args>` on a fresh data directory; usage errors must leave no session behind. */
const usageError = async (args: ReadonlyArray<string>) => {
  const home = temps.dir("usage-home-")
  const result = await runCli(args, { env: { CUSTOM_AGENT_HOME: home } })
  expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(2)
  expect(result.stdout).toBe("")
  expect((await runCli(["sessions", "list"], { env: { CUSTOM_AGENT_HOME: home } })).stdout).not.toContain("ses_")
  return result.stderr
}

describe("usage errors: exit 2, naming the option and what it accepts, with the near miss", { timeout: 120_000 }, () => {
  it("an unknown model, and a script that is not there, are usage errors", async () => {
    expect(await usageError(["run", "hi", "--model", "gpt4"])).toBe(
      'custom-agent run: --model: unknown model "gpt4": use scripted, anthropic, anthropic/<model-id> or openai/<model-id>\n(see custom-agent run --help)\n'
    )
    expect(await usageError(["run", "hi", "--model", "antropic/claude-x"])).toContain("did you mean anthropic/claude-x?")
    const missing = temps.dir("usage-files-") + "/none.json"
    expect(await usageError(["run", "hi", "--script", missing])).toContain(`custom-agent run: --script ${missing}: no such file`)
  })

  it("sessions lst lists the sessions command's subcommands and means list", async () => {
    const stderr = await usageError(["sessions", "lst"])
    expect(stderr).toContain("custom-agent sessions: unknown command lst; did you mean list? (custom-agent sessions has: list, show, export, import, rewind, redo, fork)")
    expect(stderr).not.toContain("serve")
  })

  it("run --sesion x: an unknown option, and the one meant", async () => {
    expect(await usageError(["run", "--sesion", "x", "hi"])).toContain("custom-agent run: unknown option --sesion; did you mean --session?")
  })

  it("--mode plna names --mode, every mode and the one meant", async () => {
    expect(await usageError(["run", "hi", "--mode", "plna"])).toContain("--mode must be one of default, plan, accept-edits, bypass, got plna; did you mean plan?")
  })

  it("--max-steps takes a whole number ≥ 1", async () => {
    for (const value of ["abc", "0", "-1", "2.5"]) {
      expect(await usageError(["run", "hi", `--max-steps=${value}`])).toContain(`--max-steps must be a whole number ≥ 1, got ${value}`)
    }
  })
})
