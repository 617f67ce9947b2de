import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli.js"

/**
 * Round 36's attacker pass over the local host: what a client that joins a running host
 * brings with it, and what it leaves behind. Each case has its control, the same client in
 * its own process, so a case cannot pass because its attack is a dud.
 */

const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

const fixture = (responses: ReadonlyArray<unknown>) => {
  const root = realpathSync(mkdtempSync("/var/tmp/ca-r36-"))
  roots.push(root)
  const ws = join(root, "ws")
  const data = join(root, "data")
  const home = join(root, "home")
  for (const dir of [ws, home]) mkdirSync(dir)
  writeFileSync(join(ws, "script.json"), JSON.stringify({ responses }))
  /** The CLI with the data directory shared and the configuration directory given. */
  const cli = (config: string, args: ReadonlyArray<string>) =>
    runCli(args, { cwd: ws, env: { HOME: home, CUSTOM_AGENT_HOME: data, CUSTOM_AGENT_CONFIG_HOME: config }, timeoutMs: 60_000 })
  return { root, ws, data, cli }
}

describe("round 36: a client joining the local host keeps its own rules", () => {
  it(
    "a run whose configuration directory (CUSTOM_AGENT_CONFIG_HOME) denies write_file does not join a host started with another one: its own rules hold and the write its user denied does not happen",
    { timeout: 180_000 },
    async () => {
      const write = { chunks: [{ toolCall: { name: "write_file", input: { path: "out.txt", content: "x\n" } } }] }
      const fx = fixture([write, "done"])
      const out = join(fx.ws, "out.txt")
      // The host's configuration: none (a host started from another shell, a service unit, an older
      // login's environment). The client's: the user's strict rules, a deny on every write.
      const hostConfig = join(fx.root, "host-config")
      const clientConfig = join(fx.root, "strict-config")
      mkdirSync(clientConfig, { recursive: true })
      writeFileSync(join(clientConfig, "permissions.json"), JSON.stringify({ rules: [{ tool: "write_file", decision: "deny" }] }))

      // The control: the same client in its own process; its deny rule holds.
      const own = await fx.cli(clientConfig, ["run", "--no-host", "--sandbox", "off", "--approve", "allow-all", "--script", "script.json", "--json", "write it"])
      expect(own.code, own.stderr).toBe(0)
      expect(existsSync(out), `control: the client's own deny rule holds (${own.stderr.slice(0, 300)})`).toBe(false)

      try {
        const started = await fx.cli(hostConfig, ["host", "start", "--script", "script.json", "--sandbox", "off"])
        expect(started.code, started.stderr).toBe(0)
        const joined = await fx.cli(clientConfig, ["run", "--sandbox", "off", "--approve", "allow-all", "--json", "write it"])
        expect(joined.code, joined.stderr).toBe(0)
        // Either it runs in its own process (saying so) or the host applies the client's rules: the write never happens.
        expect(existsSync(out), `a client's own deny rule must hold wherever its turn runs (stderr: ${joined.stderr.slice(0, 300)})`).toBe(false)
      } finally {
        await fx.cli(hostConfig, ["host", "stop", "--now"])
      }
    }
  )
})
