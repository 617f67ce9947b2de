import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { eventsOf, parseEventLines } from "../support/events.js"

/**
 * Round 34's attacker pass over the local host and what joins it: a client joins only a host
 * with its own sandbox setting, and `run --bg` sends the turn's limits. Each case did its harm
 * before its rule; each has its control, the same client without the host, so a case cannot
 * pass because its attack is a dud.
 */

// Under /var/tmp: the sandbox's private /tmp would hide a write to the host's /tmp.
const roots: Array<string> = []
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
})

const fixture = (responses: (outside: string) => ReadonlyArray<unknown>) => {
  const root = realpathSync(mkdtempSync("/var/tmp/ca-r34-"))
  roots.push(root)
  const ws = join(root, "ws")
  const outside = join(root, "outside")
  const data = join(root, "data")
  const home = join(root, "home")
  for (const dir of [ws, outside, home]) mkdirSync(dir)
  writeFileSync(join(ws, "script.json"), JSON.stringify({ responses: responses(outside) }))
  const config = join(root, "config")
  const env = { HOME: home, CUSTOM_AGENT_HOME: data, CUSTOM_AGENT_CONFIG_HOME: config }
  const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd: ws, env, timeoutMs: 60_000 })
  return { ws, outside, config, data, cli, stop: () => cli(["host", "stop", "--now"]) }
}

/** The pids of the `host run` processes serving `dataDir`, read from /proc. */
const hostProcesses = (dataDir: string): ReadonlyArray<number> =>
  readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return []
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")
      const at = argv.indexOf("host")
      return at >= 0 && argv[at + 1] === "run" && argv.includes(dataDir) ? [Number(entry)] : []
    } catch {
      return []
    }
  })

const waitUntil = async (what: string, test: () => boolean, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A shell line writing outside the workspace: what the sandbox (`--sandbox on`) must hold. */
const escape = (outside: string) => ({
  chunks: [{ toolCall: { name: "shell", input: { command: `echo pwned > ${join(outside, "pwned.txt")}` }, id: "call_1" } }]
})

describe("round 34: a client joining the local host gets the host's sandbox, not its own", () => {
  it(
    "run --sandbox on joins a host started with --sandbox off: the command runs unsandboxed and writes outside the workspace (the client said to refuse without the sandbox)",
    { timeout: 180_000 },
    async () => {
      // The control: the same client in its own process. `--sandbox on` holds the write (or refuses to start without bubblewrap).
      const control = fixture((outside) => [escape(outside), "done"])
      const own = await control.cli(["run", "--no-host", "--sandbox", "on", "--approve", "allow-all", "--script", "script.json", "--json", "go"])
      expect(existsSync(join(control.outside, "pwned.txt")), `control (exit ${own.code}: ${own.stderr.slice(0, 300)}): the client's own sandbox holds the write`).toBe(false)

      const attack = fixture((outside) => [escape(outside), "done"])
      try {
        // Whoever started the host (an earlier `run --bg --sandbox off`, a script) chose no sandbox.
        const started = await attack.cli(["host", "start", "--script", "script.json", "--sandbox", "off"])
        expect(started.code, started.stderr).toBe(0)
        // The person now asks for a sandboxed run: "on refuses to start without it".
        const joined = await attack.cli(["run", "--sandbox", "on", "--approve", "allow-all", "--json", "go"])
        // Before the rule it joined and its call ran unsandboxed; now it runs in its own process (where
        // the host's script is not its model: the echo model answers and no call runs).
        expect(joined.stderr).toContain("another sandbox setting")
        expect(existsSync(join(attack.outside, "pwned.txt")), "a run asking for the sandbox must not run a command outside it").toBe(false)
      } finally {
        await attack.stop()
      }
    }
  )
})

describe("round 34: a client joining the local host gets the host's network, not its own", () => {
  it(
    "a plain run (network closed in the sandbox) joins a host started with --sandbox-network: its command reaches a TCP listener the client never opened the network to",
    { timeout: 180_000 },
    async () => {
      const connections: Array<string> = []
      const listener = createServer((socket) => {
        connections.push("connected")
        socket.destroy()
      })
      await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
      const address = listener.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      // Connects and says so in the workspace (writable in the sandbox), so the call's effect is seen either way.
      const knock = {
        chunks: [{ toolCall: { name: "shell", input: { command: `(echo hi > /dev/tcp/127.0.0.1/${port}) && echo open > knocked.txt || echo closed > knocked.txt` }, id: "call_1" } }]
      }
      try {
        // The control: the same client in its own process, sandbox on, network closed (the default).
        const control = fixture(() => [knock, "done"])
        const own = await control.cli(["run", "--no-host", "--sandbox", "on", "--approve", "allow-all", "--script", "script.json", "--json", "go"])
        expect(eventsOf(parseEventLines(own.stdout), "tool.started").length, `control ran its call: ${own.stderr}`).toBe(1)
        expect(connections, "control: the closed network holds the connection").toEqual([])

        const attack = fixture(() => [knock, "done"])
        try {
          const started = await attack.cli(["host", "start", "--script", "script.json", "--sandbox", "on", "--sandbox-network"])
          expect(started.code, started.stderr).toBe(0)
          // The person gives no --sandbox-network: "closed by default, loopback included".
          const joined = await attack.cli(["run", "--sandbox", "on", "--approve", "allow-all", "--json", "go"])
          // Before the rule it joined and its command got through; now it runs in its own process.
          expect(joined.stderr).toContain("another sandbox setting")
          expect(connections, "a run that did not open the network must not reach it").toEqual([])
        } finally {
          await attack.stop()
        }
      } finally {
        listener.close()
      }
    }
  )
})

describe("round 34: what `run --bg` passes to the host's turn", () => {
  it(
    "run --bg --max-turn-tokens 1000: the limit never reaches the turn, which runs past it (the same run joined in the foreground stops at it)",
    { timeout: 180_000 },
    async () => {
      const step = { chunks: [{ toolCall: { name: "list_files", input: {} } }], usage: { inputTokens: 900, outputTokens: 200 } }
      const fx = fixture(() => [step, step, "done", step, step, "done"])
      const turns = async (sessionId: string) => {
        const exported = await fx.cli(["sessions", "export", sessionId])
        return parseEventLines(exported.stdout)
      }
      try {
        expect((await fx.cli(["host", "start", "--script", "script.json"])).code).toBe(0)
        // The control: a plain run joins the same host and its limit stops the turn.
        const joined = await fx.cli(["run", "--mode", "bypass", "--max-turn-tokens", "1000", "--json", "look"])
        const joinedEvents = parseEventLines(joined.stdout)
        expect(eventsOf(joinedEvents, "turn.completed").map((e) => e.payload.stopReason), `control: ${joined.stderr}`).toEqual(["budget"])

        const background = await fx.cli(["run", "--bg", "--mode", "bypass", "--max-turn-tokens", "1000", "look again"])
        expect(background.code, background.stderr).toBe(0)
        const sessionId = background.stdout.trim()
        const deadline = Date.now() + 60_000
        let completed: ReadonlyArray<string> = []
        while (completed.length === 0 && Date.now() < deadline) {
          completed = eventsOf(await turns(sessionId), "turn.completed").map((e) => e.payload.stopReason)
          if (completed.length === 0) await new Promise((resolve) => setTimeout(resolve, 100))
        }
        const started = eventsOf(await turns(sessionId), "turn.started").map((e) => e.payload.terms)
        expect(started, "the background turn carries the person's limit").toEqual([{ maxTurnTokens: 1000 }])
        expect(completed, "the background turn stops at the person's limit").toEqual(["budget"])
      } finally {
        await fx.stop()
      }
    }
  )
})

describe("round 34: hosts started at once on one data directory", () => {
  const pidIn = (text: string) => Number(/pid (\d+)/.exec(text)?.[1])

  for (const [name, leftover] of [
    ["a fresh data directory", false],
    ["a data directory whose host was killed (its socket left behind)", true]
  ] as const) {
    it(`five host starts at once on ${name}: exactly one host is left serving, and every start names it`, { timeout: 180_000 }, async () => {
      const fx = fixture(() => ["hello"])
      try {
        if (leftover) {
          // A socket nothing listens on, as a killed host leaves it.
          mkdirSync(fx.data, { recursive: true, mode: 0o700 })
          const dead = createServer()
          await new Promise<void>((resolve) => dead.listen(join(fx.data, "host.sock"), resolve))
          // Closing removes the file: keep it, as kill -9 would.
          const path = join(fx.data, "host.sock")
          const kept = join(fx.data, "kept.sock")
          rmSync(kept, { force: true })
          const { renameSync } = await import("node:fs")
          renameSync(path, kept)
          await new Promise<void>((resolve) => dead.close(() => resolve()))
          renameSync(kept, path)
        }
        const starts = await Promise.all(Array.from({ length: 5 }, () => fx.cli(["host", "start", "--script", "script.json"])))
        for (const start of starts) expect(start.code, start.stderr).toBe(0)
        const pids = new Set(starts.map((start) => pidIn(start.stdout)))
        expect(pids.size, starts.map((start) => start.stdout).join("")).toBe(1)
        const [pid] = [...pids]
        // Before the rule a loser, failing to bind, removed the winner's socket as it went: nobody reached the winner.
        expect(existsSync(join(fx.data, "host.sock"))).toBe(true)
        // The losers go once they find the winner; what is left is the one every client reaches.
        await waitUntil("one host process is left", () => hostProcesses(fx.data).length === 1)
        expect(hostProcesses(fx.data)).toEqual([pid])
        const statuses = await Promise.all(Array.from({ length: 3 }, () => fx.cli(["host", "status"])))
        for (const status of statuses) expect(pidIn(status.stdout)).toBe(pid)
      } finally {
        await fx.stop()
        for (const pid of hostProcesses(fx.data)) process.kill(pid, "SIGKILL")
      }
    })
  }
})

describe("round 34: the user's rules as the running host sees them", () => {
  it("a deny rule the user adds while the host runs holds for the next client that joins it (it held only after a restart)", { timeout: 180_000 }, async () => {
    // Each session's script starts again: both runs write out.txt.
    const fx = fixture(() => [{ chunks: [{ toolCall: { name: "write_file", input: { path: "out.txt", content: "x\n" } } }] }, "done"])
    const out = join(fx.ws, "out.txt")
    try {
      expect((await fx.cli(["host", "start", "--script", "script.json", "--sandbox", "off"])).code).toBe(0)
      // The control: the same joined run writes before the rule.
      const before = await fx.cli(["run", "--sandbox", "off", "--approve", "allow-all", "--json", "write it"])
      expect(before.stderr).not.toContain("running in this process instead")
      expect(existsSync(out), `control: ${before.stderr}`).toBe(true)
      rmSync(out)
      mkdirSync(fx.config, { recursive: true })
      writeFileSync(join(fx.config, "permissions.json"), JSON.stringify({ rules: [{ tool: "write_file", decision: "deny" }] }))
      const after = await fx.cli(["run", "--sandbox", "off", "--approve", "allow-all", "--json", "write it again"])
      expect(after.code, after.stderr).toBe(0)
      expect(existsSync(out), "the user's deny rule must hold in the running host").toBe(false)
      const resolved = eventsOf(parseEventLines(after.stdout), "permission.resolved").map((event) => event.payload)
      expect(resolved).toMatchObject([{ decision: "deny", by: "rule" }])
    } finally {
      await fx.stop()
    }
  })
})
