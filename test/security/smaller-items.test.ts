import { afterAll, describe, expect, it } from "@effect/vitest"
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { runCli, startServer, stop } from "../support/cli.js"
import { eventsOf, parseEventLines } from "../support/events.js"
import { allowShell, type SecurityCase, sh, writeFile } from "./cases.js"
import { removeFixtures } from "./fixture.js"
import { callId, prepareFixture, scriptPath } from "./run-case.js"

/** The smaller items that a user of the CLI can check: private data, honest records. */
describe("smaller items", () => {
  afterAll(removeFixtures)

  it("a data dir the agent creates is private: the folders 0700, its files 0600 (0400 for git's read-only checkpoint objects)", { timeout: 60_000 }, async () => {
    const c: SecurityCase = { name: "private data", rules: [allowShell("echo *")], calls: [sh("echo secret-ish output")], expect: { kind: "allowed" } }
    const fx = prepareFixture(c)
    const data = join(fx.root, "fresh-data")
    const result = await runCli(["run", "go", "--script", scriptPath(fx), "--approve", "deny", "--json", "--data-dir", data], {
      cwd: fx.ws,
      env: { CUSTOM_AGENT_CONFIG_HOME: fx.config, HOME: fx.home }
    })
    expect(result.code, result.stderr).toBe(0)
    expect((statSync(data).mode & 0o777).toString(8)).toBe("700")
    const entries = readdirSync(data, { recursive: true, withFileTypes: true })
    const files = entries.filter((entry) => entry.isFile())
    expect(files.length).toBeGreaterThan(0)
    // The shell call made a checkpoint: its private repository is in here too.
    expect(entries.some((entry) => entry.isDirectory() && entry.name === "checkpoints")).toBe(true)
    const modeOf = (entry: { readonly name: string; readonly parentPath: string }) => (statSync(join(entry.parentPath, entry.name)).mode & 0o777).toString(8)
    for (const file of files) expect([`${file.name} 600`, `${file.name} 400`]).toContain(`${file.name} ${modeOf(file)}`)
    for (const dir of entries.filter((entry) => entry.isDirectory())) expect(`${dir.name} ${modeOf(dir)}`).toBe(`${dir.name} 700`)
  })

  it("run --server --approve deny records the answer as the policy's, not a person's", { timeout: 60_000 }, async () => {
    const c: SecurityCase = { name: "policy on the record", calls: [writeFile("made.txt")], expect: { kind: "denied" } }
    const fx = prepareFixture(c)
    const server = await startServer(["--data-dir", fx.data, "--script", scriptPath(fx)], {
      cwd: fx.ws,
      env: { CUSTOM_AGENT_CONFIG_HOME: fx.config, HOME: fx.home }
    })
    try {
      const result = await runCli(["run", "go", "--json", "--server", server.url, "--approve", "deny"], {
        cwd: fx.ws,
        env: { CUSTOM_AGENT_TOKEN: server.token, CUSTOM_AGENT_CONFIG_HOME: fx.config, HOME: fx.home }
      })
      expect(result.code, result.stderr).toBe(0)
      const resolved = eventsOf(parseEventLines(result.stdout), "permission.resolved").map((e) => e.payload)
      expect(resolved).toMatchObject([{ toolCallId: callId(0), decision: "deny", by: "policy" }])
    } finally {
      await stop(server.child)
    }
  })
})
