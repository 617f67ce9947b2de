import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { eventsOf, parseEventLines } from "../support/events.js"
import { keys, openOnPty } from "../support/pty-screen.js"
import { makeTemp } from "../support/temp-dirs.js"

/**
 * `custom-agent sessions` on a terminal: the live view of the data directory's sessions through
 * its local host (a session waiting shows, is answered from the list, and raises the terminal's
 * notification), Enter opens the interactive session on one and the view comes back after it,
 * and with no host the store's list; piped, it prints once.
 */

const temps = makeTemp()
afterAll(temps.cleanup)

const setup = (responses: ReadonlyArray<unknown>) => {
  const cwd = temps.dir("live-workspace-")
  const home = temps.dir("live-home-")
  writeFileSync(join(cwd, "script.json"), JSON.stringify({ responses }))
  const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: join(home, "config") }
  const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd, env, timeoutMs: 60_000 })
  // Every test stops its host, whatever happened: none is left running.
  const stop = () => cli(["host", "stop", "--now"])
  return { cwd, home, cli, stop }
}

const writeCall = { chunks: [{ text: "Working on it." }, { toolCall: { name: "write_file", input: { path: "out.txt", content: "written in the host\n" } } }] }

/** The row of `sessionId` on the screen. */
const rowOf = (screen: string, sessionId: string) => screen.split("\n").find((line) => line.includes(sessionId)) ?? ""

describe("custom-agent sessions, live", () => {
  it("follows the host's sessions: one that starts waiting shows and notifies, a answers it from the list, q leaves the screen as it was", { timeout: 120_000 }, async () => {
    const { cwd, home, cli, stop } = setup([writeCall, "All done."])
    try {
      expect((await cli(["host", "start", "--script", "script.json"])).code).toBe(0)
      let sessionId = ""
      const view = openOnPty(["sessions"], { cwd, home, cols: 110 })
      try {
        await view.waitFor("local host", { where: "screen" })
        await view.waitFor("no running or recent sessions", { where: "screen" })
        // The host runs the script it was started with.
        const started = await cli(["run", "--bg", "write out.txt"])
        expect(started.code, started.stderr).toBe(0)
        sessionId = started.stdout.trim()
        await view.waitFor((screen) => rowOf(screen, sessionId).includes("waiting"), { where: "screen" })
        // The terminal's notification, with the bell for terminals without OSC 9.
        expect(view.raw()).toMatch(/\x1b\]9;custom-agent: [^\x07\x1b]*waits for an answer\x07/)
        expect(view.bells()).toBeGreaterThan(0)
        view.type("a")
        await view.waitFor("asks to run write_file", { where: "screen" })
        await view.waitFor("[y] allow once", { where: "screen" })
        view.type("y")
        await view.waitFor((screen) => rowOf(screen, sessionId).includes("done"), { where: "screen" })
        expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("written in the host\n")
        view.type("q")
        expect(await view.exit).toBe(0)
        // The alternate screen was left and the cursor shown again.
        expect(view.raw().endsWith("\x1b[?25h\x1b[?1049l")).toBe(true)
      } finally {
        view.kill()
      }
      const events = parseEventLines((await cli(["sessions", "export", sessionId])).stdout)
      expect(eventsOf(events, "permission.resolved")[0]?.payload).toMatchObject({ decision: "allow", by: "user" })
    } finally {
      await stop()
    }
  })

  it("Enter opens the interactive session on the selected one, as attach does, and the view comes back when it closes", { timeout: 120_000 }, async () => {
    const { cwd, home, cli, stop } = setup([writeCall, "All done."])
    try {
      const started = await cli(["run", "--bg", "--script", "script.json", "write out.txt"])
      expect(started.code, started.stderr).toBe(0)
      const sessionId = started.stdout.trim()
      const view = openOnPty(["sessions"], { cwd, home, cols: 110 })
      try {
        await view.waitFor((screen) => rowOf(screen, sessionId).includes("waiting"), { where: "screen" })
        view.type(keys.enter)
        await view.waitFor("Working on it.")
        await view.waitFor("[y] allow once")
        view.type("y")
        await view.waitFor("All done.")
        view.type(keys.ctrlC)
        view.type(keys.ctrlC)
        await view.waitFor((screen) => screen.includes("custom-agent sessions") && rowOf(screen, sessionId).includes("done"), { where: "screen" })
        view.type("q")
        expect(await view.exit).toBe(0)
      } finally {
        view.kill()
      }
      expect(existsSync(join(cwd, "out.txt"))).toBe(true)
    } finally {
      await stop()
    }
  })

  it("with no host, shows the store's sessions; piped or --once it prints them once", { timeout: 90_000 }, async () => {
    const { cwd, home, cli, stop } = setup(["hello there"])
    try {
      const ran = await cli(["run", "--script", "script.json", "--no-host", "say hello"])
      expect(ran.code, ran.stderr).toBe(0)
      const piped = await cli(["sessions"])
      expect(piped.code, piped.stderr).toBe(0)
      expect(piped.stdout).toMatch(/STATUS\s+SESSION\s+UPDATED\s+WORKSPACE\s+TITLE/)
      expect(piped.stdout).toMatch(/done\s+ses_/)
      const view = openOnPty(["sessions"], { cwd, home, cols: 110 })
      try {
        await view.waitFor("custom-agent sessions · store", { where: "screen" })
        await view.waitFor(/done\s+ses_/, { where: "screen" })
        view.type("a")
        await view.waitFor("waits for no answer", { where: "screen" })
        view.type(keys.ctrlC)
        expect(await view.exit).toBe(0)
      } finally {
        view.kill()
      }
      const once = openOnPty(["sessions", "--once"], { cwd, home, cols: 110 })
      try {
        expect(await once.exit).toBe(0)
        expect(once.all()).toMatch(/done\s+ses_/)
      } finally {
        once.kill()
      }
    } finally {
      await stop()
    }
  })
})
