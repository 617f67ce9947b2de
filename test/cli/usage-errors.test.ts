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
      'custom-agent run: --model: unknown model "gpt4": use scripted, anthropic, anthropic/<model-id>, openai/<model-id> or openai-compatible/<model-id>\n(see custom-agent run --help)\n'
    )
    expect(await usageError(["run", "hi", "--model", "antropic/claude-x"])).toContain("did you mean anthropic/claude-x?")
    const missing = temps.dir("usage-files-") + "/none.json"
    expect(await usageError(["run", "hi", "--script", missing])).toContain(`custom-agent run: --script: no such file: ${missing}`)
  })

  it("a file that is not there reads the same whichever option or argument named it", async () => {
    const missing = temps.dir("usage-files-") + "/none.json"
    expect(await usageError(["run", "hi", "--script", missing])).toBe(`custom-agent run: --script: no such file: ${missing}\n(see custom-agent run --help)\n`)
    expect(await usageError(["run", "hi", "--output-schema", missing])).toBe(
      `custom-agent run: --output-schema: no such file: ${missing}\n(see custom-agent run --help)\n`
    )
    expect(await usageError(["sessions", "import", missing])).toBe(
      `custom-agent sessions import: <file>: no such file: ${missing}\n(see custom-agent sessions import --help)\n`
    )
    expect(await usageError(["sessions", "list", "--server", "http://127.0.0.1:9", "--token-file", missing])).toBe(
      `custom-agent sessions list: --token-file: no such file: ${missing}\n(see custom-agent sessions list --help)\n`
    )
  })

  it("serve --port outside 0 to 65535 names --port and the range", async () => {
    for (const value of ["99999", "65536", "-1"]) {
      expect(await usageError(["serve", "--port", value])).toBe(
        `custom-agent serve: --port must be a port number from 0 to 65535, got ${value}\n(see custom-agent serve --help)\n`
      )
    }
  })

  it("--server takes an http(s) URL, and needs the server's token, saying how to give it", async () => {
    for (const value of ["notaurl", "127.0.0.1:7420", "ftp://127.0.0.1/"]) {
      expect(await usageError(["run", "hi", "--server", value])).toContain(
        `custom-agent run: --server must be the URL of a custom-agent serve, such as http://127.0.0.1:7420, got ${value}`
      )
    }
    expect(await usageError(["sessions", "list", "--server", "nowhere"])).toContain("custom-agent sessions list: --server must be the URL")
    for (const args of [["run", "hi", "--server", "http://127.0.0.1:9"], ["sessions", "list", "--server", "http://127.0.0.1:9"]]) {
      expect(await usageError(args)).toContain("--server needs the server's token: set CUSTOM_AGENT_TOKEN or pass --token-file PATH")
    }
  })

  it("sessions lst lists the sessions command's subcommands and means list", async () => {
    const stderr = await usageError(["sessions", "lst"])
    expect(stderr).toContain("custom-agent sessions: unknown command lst; did you mean list? (custom-agent sessions has: list, show, rename, archive, delete, export, import, rewind, redo, fork)")
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
