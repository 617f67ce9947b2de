import { afterAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { eventsOf } from "../../support/events.js"
import { keys, openOnPty } from "../../support/pty-screen.js"
import { makeTemp } from "../../support/temp-dirs.js"
import { exportedEvents, scriptedWorkspace, sessionIdOn } from "../../support/tui-session.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** pi-tui's start (its query of the keyboard protocol, which the early frame never sends): the session has the terminal from here. */
const SESSION_STARTED = "\x1b[?u"
const header = (screen: string) => screen.split("\n").filter((line) => line.startsWith("custom-agent ")).length

describe("the first frame, drawn by the launcher before the CLI loads", () => {
  it("is taken over by the session: one header in the scrollback, no 'starting…' left, keys typed meanwhile in the editor", { timeout: 60_000 }, async () => {
    const cwd = scriptedWorkspace(temps.dir("early-frame-"), ["the answer"])
    const home = temps.dir("early-home-")
    const session = openOnPty(["--script", "script.json"], { cwd, home, cols: 100 })
    try {
      await session.waitFor("starting…")
      // Typed while the CLI still loads: nothing of the session is on the terminal yet.
      session.type("typed ahead")
      session.type(keys.enter)
      expect(session.raw()).not.toContain(SESSION_STARTED)
      await session.waitFor("the answer")
      const all = session.all()
      expect(header(all)).toBe(1)
      expect(all).not.toContain("starting…")
      const users = eventsOf(await exportedEvents(home, sessionIdOn(all)), "user.message").map((event) => event.payload.content)
      expect(users).toEqual(["typed ahead"])
    } finally {
      session.kill()
    }
  })

  it("goes before the trust question, which is asked on the plain terminal as before; keys typed before it are not its answer", { timeout: 60_000 }, async () => {
    const cwd = scriptedWorkspace(temps.dir("early-trust-"), ["answered"])
    mkdirSync(join(cwd, ".custom-agent"), { recursive: true })
    writeFileSync(join(cwd, ".custom-agent", "permissions.json"), JSON.stringify({ rules: [{ tool: "shell", command: "make *", decision: "allow" }] }))
    const home = temps.dir("early-home-")
    const session = openOnPty(["--script", "script.json"], { cwd, home, cols: 100 })
    try {
      await session.waitFor("starting…")
      session.type("y")
      await session.waitFor("Trust it? [y/N]")
      // The frame went before the question: nothing of it is left above.
      expect(session.all()).not.toContain("starting…")
      expect(session.all()).not.toMatch(/Trust it\? \[y\/N\] y/)
      session.type("n\r")
      await session.waitFor("Not trusted")
      await session.waitFor("mode default")
      // The key typed early waits in the editor.
      await session.waitFor(/^y\s*$/m, { where: "screen" })
      expect(header(session.all())).toBe(1)
    } finally {
      session.kill()
    }
  })

  it("Ctrl-C before the session is ready leaves, the terminal as it was", { timeout: 60_000 }, async () => {
    const cwd = scriptedWorkspace(temps.dir("early-quit-"), [])
    const session = openOnPty(["--script", "script.json"], { cwd, home: temps.dir("early-home-"), cols: 100 })
    try {
      await session.waitFor("starting…")
      session.type(keys.ctrlC)
      // Ended by the interrupt (as a signal, before the CLI's own handler is there): the program is gone.
      await session.exit
      expect(session.all()).not.toContain("starting…")
    } finally {
      session.kill()
    }
  })

  it("is not drawn for a command, nor with colours under NO_COLOR (the session's tests run so)", { timeout: 60_000 }, async () => {
    const cwd = scriptedWorkspace(temps.dir("early-cmd-"), [])
    const session = openOnPty(["sessions", "list"], { cwd, home: temps.dir("early-home-"), cols: 100 })
    try {
      await session.exit
      expect(session.raw()).not.toContain("starting…")
    } finally {
      session.kill()
    }
    const plain = openOnPty(["--script", "script.json"], { cwd, home: temps.dir("early-home-"), cols: 100 })
    try {
      await plain.waitFor("starting…")
      const early = plain.raw().slice(0, plain.raw().indexOf("starting…"))
      expect(early.replace(/\x1b\[\?(2026|25|2004)[hl]/g, "")).not.toContain("\x1b")
    } finally {
      plain.kill()
    }
  })
})
