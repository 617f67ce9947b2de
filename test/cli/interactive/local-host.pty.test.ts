import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../support/cli.js"
import { eventsOf } from "../../support/events.js"
import { keys, openOnPty, type PtySession } from "../../support/pty-screen.js"
import { makeTemp } from "../../support/temp-dirs.js"
import { exportedEvents, scriptedWorkspace, sessionIdOn } from "../../support/tui-session.js"

/**
 * The interactive session and the data directory's local host: the session starts the host
 * when none runs and runs on it; a host that cannot start leaves it in its own process. Every
 * test stops the host it made: none is left running.
 */

const temps = makeTemp()
afterAll(temps.cleanup)

const setup = (responses: ReadonlyArray<unknown>) => {
  const cwd = scriptedWorkspace(temps.dir("hoststart-ws-"), responses)
  const home = temps.dir("hoststart-home-")
  const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: join(home, "config") }
  const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd, env, timeoutMs: 60_000 })
  return { cwd, home, cli, stopHost: () => cli(["host", "stop", "--now"]) }
}

/** The text with every space and line end gone: a line the session wraps with an indent compares whole. */
const squeezed = (text: string) => text.replace(/\s+/g, "")

const occurrences = (text: string, part: string) => text.split(part).length - 1

const quit = async (session: PtySession) => {
  session.type(keys.ctrlC)
  await session.waitFor("press ctrl+c again to quit")
  session.type(keys.ctrlC)
  await session.exit
}

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
})
