import { describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { allowOnTheWeb } from "../support/answer-elsewhere.js"
import { startServer, stop } from "../support/cli.js"
import { runOnTerminal } from "../support/terminal.js"

/**
 * `run --server` at a terminal asks the person there; the web page (another client of the
 * same server) may answer first. The terminal's question is then withdrawn, saying who
 * answered and where, and the run goes on to the end of the turn with nothing typed.
 */
describe("a question answered by another client", () => {
  it("is withdrawn from the terminal, which says who answered and where, and the turn finishes", { timeout: 90_000 }, async () => {
    const cwd = mkdtempSync(join(tmpdir(), "withdrawn-"))
    writeFileSync(
      join(cwd, "script.json"),
      JSON.stringify({ responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "a.txt", content: "hi\n" } } }] }, "done"] })
    )
    const server = await startServer(["--data-dir", join(cwd, "data"), "--script", "script.json"], { cwd })
    writeFileSync(join(cwd, "token"), server.token, { mode: 0o600 })
    const answerOnTheWeb = () => allowOnTheWeb(server, "write_file")
    try {
      const { code, output } = await runOnTerminal(
        cwd,
        ["run", "--server", server.url, "--token-file", join(cwd, "token"), "write a.txt"],
        "deny always >",
        [answerOnTheWeb]
      )
      expect(code).toBe(0)
      expect(output).toMatch(/deny always > \n {2}allowed by user, on the web\n/)
      expect(output).toContain("✓ write_file a.txt")
      expect(output).toContain("done")
      // Asked once: the answer from the web was not followed by a second question.
      expect(output.split("deny always >").length - 1).toBe(1)
      expect(existsSync(join(cwd, "a.txt"))).toBe(true)
    } finally {
      await stop(server.child)
    }
  })
})
