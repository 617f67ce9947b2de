import { afterAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { allowOnTheWeb } from "../../support/answer-elsewhere.js"
import { startServer, stop } from "../../support/cli.js"
import { keys, openOnPty } from "../../support/pty-screen.js"
import { eventsOf } from "../../support/events.js"
import { makeTemp } from "../../support/temp-dirs.js"
import { exportedEvents, sessionIdOn } from "../../support/tui-session.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const writeScript = (cwd: string) =>
  writeFileSync(
    join(cwd, "script.json"),
    JSON.stringify({ responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "a.txt", content: "hello\n" } } }] }, "wrote it"] })
  )

describe("a permission question in the interactive session", () => {
  for (const cols of [80, 120]) {
    it(`shows the whole diff and what a lasting answer would store, and takes one key (${cols} columns)`, { timeout: 60_000 }, async () => {
      const cwd = temps.dir("tui-ask-")
      writeScript(cwd)
      const session = openOnPty(["--script", "script.json"], { cwd, home: temps.dir("tui-home-"), cols })
      try {
        await session.waitFor("custom-agent")
        expect(session.bells()).toBe(0)
        session.type("write a.txt")
        session.type(keys.enter)
        const asked = await session.waitFor("[n] deny")
        // The question rang the terminal's bell, once (a terminal in the background marks or notifies it).
        expect(session.bells()).toBe(1)
        expect(asked).toContain("? create a.txt (write_file, write)")
        expect(asked).toContain("+hello")
        // What s, a and d would store, before anything is stored.
        expect(asked).toMatch(/s and a cover changes to a\.txt/)
        expect(existsSync(join(cwd, "a.txt"))).toBe(false)
        session.type("y")
        const done = await session.waitFor("wrote it")
        expect(done).toMatch(/✓ write_file a\.txt · \d+ ms/)
        expect(done).not.toContain("[n] deny")
        expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hello\n")
      } finally {
        session.kill()
      }
    })
  }

  it("a lasting answer asks how far it reaches, among the question's offers, and the host stores the one picked", { timeout: 60_000 }, async () => {
    const cwd = temps.dir("tui-reach-")
    const home = temps.dir("tui-home-")
    mkdirSync(join(cwd, "src", "deep"), { recursive: true })
    const write = (path: string) => ({ chunks: [{ toolCall: { name: "write_file", input: { path, content: "hello\n" } } }] })
    writeFileSync(join(cwd, "script.json"), JSON.stringify({ responses: [write("src/a.ts"), "wrote a", write("src/deep/b.ts"), "wrote b"] }))
    const session = openOnPty(["--script", "script.json"], { cwd, home, cols: 100 })
    try {
      await session.waitFor("custom-agent")
      session.type("write a")
      session.type(keys.enter)
      await session.waitFor("[n] deny")
      session.type("a")
      const reach = await session.waitFor("choose (Enter: 1)")
      expect(reach).toContain("allow always: remember which?")
      expect(reach).toMatch(/\[1\] src\/a\.ts \(as shown\)[\s\S]*\[2\] src\/\*[\s\S]*\[3\] src\/\*\*/)
      session.type("3")
      await session.waitFor("wrote a")
      // The next write under src/ is covered by what was picked: no question.
      session.type("write b")
      session.type(keys.enter)
      const after = await session.waitFor("wrote b")
      expect(after).toMatch(/✓ write_file src\/deep\/b\.ts/)
      const events = await exportedEvents(home, sessionIdOn(after))
      const resolved = eventsOf(events, "permission.resolved").map((event) => [event.payload.by, event.payload.remembered?.paths])
      expect(resolved).toEqual([
        ["user", ["src/**"]],
        ["remembered", undefined]
      ])
    } finally {
      session.kill()
    }
  })

  it("answered by another client of the server (the web page), is withdrawn, saying who answered and where", { timeout: 90_000 }, async () => {
    const cwd = temps.dir("tui-withdrawn-")
    writeScript(cwd)
    const server = await startServer(["--data-dir", join(cwd, "data"), "--script", "script.json"], { cwd })
    writeFileSync(join(cwd, "token"), server.token, { mode: 0o600 })
    const session = openOnPty(["--server", server.url, "--token-file", join(cwd, "token")], { cwd, home: temps.dir("tui-home-"), cols: 100 })
    try {
      await session.waitFor("custom-agent")
      session.type("write a.txt")
      session.type(keys.enter)
      await session.waitFor("[n] deny")
      await allowOnTheWeb(server, "write_file")
      const after = await session.waitFor("wrote it")
      expect(after).toContain("question withdrawn: allowed by user, on the web")
      expect(after).toMatch(/✓ write_file a\.txt · \d+ ms · allowed, on the web/)
      expect(after).not.toContain("[n] deny")
      expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hello\n")
    } finally {
      session.kill()
      await stop(server.child)
    }
  })
})
