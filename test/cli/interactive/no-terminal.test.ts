import { afterAll, describe, expect, it } from "@effect/vitest"
import { runCli } from "../../support/cli.js"
import { makeTemp } from "../../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

describe("custom-agent with no command and no terminal", () => {
  it("without a terminal it says so in one line, points to run, and exits 2", { timeout: 60_000 }, async () => {
    const home = temps.dir("entry-home-")
    for (const args of [[], ["-c"], ["--resume"]]) {
      const result = await runCli(args, { env: { CUSTOM_AGENT_HOME: home } })
      expect(result.code, args.join(" ")).toBe(2)
      expect(result.stdout).toBe("")
      expect(result.stderr).toBe('custom-agent: the interactive session needs a terminal (stdin and stdout); for one turn without one: custom-agent run "<prompt>"\n')
    }
  })
})
