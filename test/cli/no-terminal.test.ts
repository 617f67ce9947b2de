import { describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runCli } from "../support/cli.js"

describe("run without a terminal", () => {
  it("denies a question nobody can answer and says so, naming --approve as the way to decide", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "no-terminal-"))
    writeFileSync(
      join(cwd, "script.json"),
      JSON.stringify({ responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "a.txt", content: "hi\n" } } }] }, "left it"] })
    )
    const run = await runCli(["run", "--script", "script.json", "--data-dir", join(cwd, "data"), "write a.txt"], { cwd })
    expect(run.code).toBe(0)
    expect(run.stderr).toContain("denied by policy: no terminal to ask on (pass --approve to decide without one)")
    expect(run.stderr).not.toContain("--approve deny")
    expect(existsSync(join(cwd, "a.txt"))).toBe(false)
  })
})
