import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli.js"
import { eventsOf } from "../../support/events.js"
import { keys, openOnPty, type PtySession } from "../../support/pty-screen.js"
import { makeTemp } from "../../support/temp-dirs.js"
import { exportedEvents, scriptedWorkspace, sessionIdOn } from "../../support/tui-session.js"

/**
 * The interactive session and the data directory's local host: the session starts the host
 * when none runs and runs on it; a host that cannot start leaves it in its own process; Ctrl+X
 * leaves the session with its turn running in the host, and `attach` follows it to its end;
 * quitting cancels the running turn. Every test stops the host it made: none is left running.
 */

const temps = makeTemp()
afterAll(temps.cleanup)

const ctrlX = "\x18"

const setup = (responses: ReadonlyArray<unknown>) => {
  const cwd = scriptedWorkspace(temps.dir("hoststart-ws-"), responses)
  const home = temps.dir("hoststart-home-")
  const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: join(home, "config") }
  const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd, env, timeoutMs: 60_000 })
  return { cwd, home, cli, stopHost: () => cli(["host", "stop", "--now"]) }
}

/** The screen's text with the terminal's wrapping undone (a long line fills its rows). */
const unwrapped = (text: string) => text.replace(/\n/g, "")

/** The text with every space and line end gone: a line the session wraps with an indent compares whole. */
const squeezed = (text: string) => text.replace(/\s+/g, "")

const occurrences = (text: string, part: string) => text.split(part).length - 1

const quit = async (session: PtySession) => {
  session.type(keys.ctrlC)
  await session.waitFor("press ctrl+c again to quit")
  session.type(keys.ctrlC)
  await session.exit
}

const writeCall = { chunks: [{ text: "Working on it." }, { toolCall: { name: "write_file", input: { path: "out.txt", content: "written in the host\n" } } }] }

describe("the interactive session and the local host", () => {
  it("with no host running, the session starts one and runs on it; the host outlives the session", { timeout: 120_000 }, async () => {
    const { cwd, home, cli, stopHost } = setup([])
    try {
      expect((await cli(["host", "status"])).stdout).toContain("no local host runs")
      const session = openOnPty([], { cwd, home, cols: 120 })
      let sessionId = ""
      try {
        await session.waitFor("· local host")
        session.type("hello host")
        session.type(keys.enter)
        await session.waitFor('You said: "hello host"')
        sessionId = sessionIdOn(session.all())
        const status = await cli(["host", "status"])
        expect(status.stdout).toMatch(/local host \S+ for /)
        await quit(session)
        expect(unwrapped(session.all())).toContain(`session ${sessionId} · resume it with: custom-agent --resume ${sessionId}`)
      } finally {
        session.kill()
      }
      // The session was the host's (made over its API), and the host is still there for the next client.
      expect(eventsOf(await exportedEvents(home, sessionId), "session.created")[0]?.payload.client).toBe("rpc:cli")
      expect((await cli(["host", "status"])).stdout).toMatch(/local host \S+ for /)
    } finally {
      const stopped = await stopHost()
      expect(stopped.stdout).toContain("local host stopped")
    }
  })

  it("a host that cannot start leaves the session in this process, said in one line", { timeout: 60_000 }, async () => {
    const cwd = temps.dir("hoststart-ws-")
    // A data directory whose socket path is over the system's limit: no host can listen there.
    const home = join(temps.dir("hoststart-home-"), "d".repeat(110))
    mkdirSync(home, { recursive: true })
    const session = openOnPty([], { cwd, home, cols: 120 })
    try {
      // Said in the session (the launcher's frame stays up until the session draws), which runs here.
      await session.waitFor("scripted · mode default")
      expect(squeezed(session.all())).toContain(squeezed("over the system's 107: choose a shorter --data-dir; running in this process instead"))
      expect(occurrences(squeezed(session.all()), squeezed("running in this process instead"))).toBe(1)
      session.type("still here")
      session.type(keys.enter)
      await session.waitFor('You said: "still here"')
      expect(session.all()).not.toContain("· local host")
      await quit(session)
    } finally {
      session.kill()
    }
  })

  it("Ctrl+X leaves the session with its turn running in the host; attach follows it to its end, every event once", { timeout: 150_000 }, async () => {
    const { cwd, home, cli, stopHost } = setup([writeCall, "All done."])
    try {
      expect((await cli(["host", "start", "--script", "script.json"])).code).toBe(0)
      const first = openOnPty([], { cwd, home, cols: 120 })
      let sessionId = ""
      try {
        await first.waitFor("· local host")
        first.type("write out.txt")
        first.type(keys.enter)
        await first.waitFor("[y] allow once")
        await first.waitFor("ctrl+x detach")
        sessionId = sessionIdOn(first.all())
        first.type(ctrlX)
        await first.exit
        expect(unwrapped(first.all())).toContain(`session ${sessionId} · its turn goes on in the local host; follow it with: custom-agent attach ${sessionId}`)
      } finally {
        first.kill()
      }
      // The turn waits in the host for its answer, with no terminal following it.
      expect((await cli(["host", "status"])).stdout).toContain(`turns running in ${sessionId}`)

      const second = openOnPty(["attach", sessionId], { cwd, home, cols: 120 })
      try {
        await second.waitFor("Working on it.")
        await second.waitFor("[y] allow once")
        second.type("y")
        await second.waitFor("All done.")
        expect(occurrences(second.all(), "Working on it.")).toBe(1)
        expect(occurrences(second.all(), "All done.")).toBe(1)
        await quit(second)
      } finally {
        second.kill()
      }
      expect(readFileSync(join(cwd, "out.txt"), "utf8")).toBe("written in the host\n")
      const events = await exportedEvents(home, sessionId)
      expect(new Set(events.map((event) => event.sequence)).size).toBe(events.length)
      expect(eventsOf(events, "user.message")).toHaveLength(1)
      expect(eventsOf(events, "turn.completed")).toHaveLength(1)
      expect(eventsOf(events, "turn.completed")[0]?.payload.stopReason).toBe("final")
      expect(eventsOf(events, "permission.resolved")[0]?.payload).toMatchObject({ decision: "allow", by: "user" })
    } finally {
      await stopHost()
    }
  })

  it("quitting with a turn running in the host cancels it, and says so", { timeout: 120_000 }, async () => {
    // The turn waits for an answer to its question while the session quits.
    const { cwd, home, cli, stopHost } = setup([writeCall, "never reached"])
    try {
      expect((await cli(["host", "start", "--script", "script.json"])).code).toBe(0)
      const session = openOnPty([], { cwd, home, cols: 120 })
      let sessionId = ""
      try {
        await session.waitFor("· local host")
        session.type("write out.txt")
        session.type(keys.enter)
        await session.waitFor("[y] allow once")
        sessionId = sessionIdOn(session.all())
        session.type(keys.ctrlC)
        await session.waitFor("press ctrl+c again to quit and cancel the turn · ctrl+x leaves it running")
        session.type(keys.ctrlC)
        await session.exit
        expect(unwrapped(session.all())).toContain(`session ${sessionId} · its running turn was cancelled · resume it with: custom-agent --resume ${sessionId}`)
      } finally {
        session.kill()
      }
      const events = await exportedEvents(home, sessionId)
      expect(eventsOf(events, "turn.completed")[0]?.payload.stopReason).toBe("cancelled")
      expect(existsSync(join(cwd, "out.txt"))).toBe(false)
    } finally {
      await stopHost()
    }
  })
})
