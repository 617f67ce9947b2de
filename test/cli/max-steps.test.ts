import { describe, expect, it } from "vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runCli } from "../support/cli.js"

describe("run --max-steps", () => {
  it("0 and -1 are usage errors: exit 2, the message names the option, and no session is created", async () => {
    const home = mkdtempSync(join(tmpdir(), "max-steps-"))
    try {
      for (const value of ["0", "-1"]) {
        const result = await runCli(["run", "hello", `--max-steps=${value}`], { env: { CUSTOM_AGENT_HOME: home } })
        expect(result.code).toBe(2)
        expect(result.stdout + result.stderr).toContain(`--max-steps must be a whole number ≥ 1, got ${value}`)
      }
      const listed = await runCli(["sessions", "list"], { env: { CUSTOM_AGENT_HOME: home } })
      expect(listed.stdout).not.toMatch(/ses_/)
      const fine = await runCli(["run", "hello", "--max-steps", "3"], { env: { CUSTOM_AGENT_HOME: home } })
      expect(fine.code).toBe(0)
    } finally {
      rmSync(home, { recursive: true, force: true })
    }
  })
})
