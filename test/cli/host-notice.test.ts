import { afterAll, describe, expect, it } from "@effect/vitest"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

/**
 * The local host's desktop notification, with a fake `notify-send` first on PATH that writes
 * down what it was given and the environment it got: a session nobody follows that waits for
 * an answer raises one; with `"notifications": false` in settings.json none is raised.
 */

const temps = makeTemp()
afterAll(temps.cleanup)

const writeCall = { chunks: [{ text: "Working on it." }, { toolCall: { name: "write_file", input: { path: "out.txt", content: "x\n" } } }] }

const setup = (settings?: unknown) => {
  const cwd = temps.dir("notice-workspace-")
  const home = temps.dir("notice-home-")
  const bin = temps.dir("notice-bin-")
  const said = join(bin, "said.txt")
  writeFileSync(join(bin, "notify-send"), `#!/bin/sh\nprintf '%s\\n' "$@" > "${said}.part"\nenv | sort | sed 's/=.*//' >> "${said}.part"\nmv "${said}.part" "${said}"\n`)
  chmodSync(join(bin, "notify-send"), 0o755)
  writeFileSync(join(cwd, "script.json"), JSON.stringify({ responses: [writeCall, "done"] }))
  mkdirSync(join(home, "config"), { recursive: true })
  if (settings !== undefined) writeFileSync(join(home, "config", "settings.json"), JSON.stringify(settings))
  const env = {
    CUSTOM_AGENT_HOME: home,
    CUSTOM_AGENT_CONFIG_HOME: join(home, "config"),
    PATH: `${bin}:${process.env["PATH"] ?? ""}`,
    ANTHROPIC_API_KEY: "sk-not-for-the-notifier"
  }
  const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd, env, timeoutMs: 60_000 })
  return { cli, said, stop: () => cli(["host", "stop", "--now"]) }
}

const waitUntil = async (what: string, test: () => Promise<boolean> | boolean, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("the local host's notification", () => {
  it("a session nobody follows waits for an answer: notify-send is told which, with the allowlisted environment", { timeout: 90_000 }, async () => {
    const { cli, said, stop } = setup()
    try {
      const started = await cli(["run", "--bg", "--script", "script.json", "write out.txt"])
      expect(started.code, started.stderr).toBe(0)
      const sessionId = started.stdout.trim()
      await waitUntil("notify-send ran", () => existsSync(said))
      const lines = readFileSync(said, "utf8").split("\n")
      expect(lines.slice(0, 3)).toEqual(["--app-name=custom-agent", "--", "custom-agent: a session waits for an answer"])
      expect(lines[3]).toMatch(new RegExp(`^write_file: .*out\\.txt.* \\(custom-agent attach ${sessionId}\\)$`))
      expect(lines).not.toContain("ANTHROPIC_API_KEY")
      expect(lines).not.toContain("CUSTOM_AGENT_HOME")
    } finally {
      await stop()
    }
  })

  it("none with \"notifications\": false in settings.json", { timeout: 90_000 }, async () => {
    const { cli, said, stop } = setup({ notifications: false })
    try {
      const started = await cli(["run", "--bg", "--script", "script.json", "write out.txt"])
      expect(started.code, started.stderr).toBe(0)
      const sessionId = started.stdout.trim()
      await waitUntil("the question waits", async () => (await cli(["sessions", "--json"])).stdout.includes('"waitingQuestions":1'))
      // The question was heard as it was committed, before the list showed it: a notice would have been started by now.
      expect((await cli(["sessions", "--once"])).stdout).toContain(sessionId)
      expect(existsSync(said)).toBe(false)
    } finally {
      await stop()
    }
  })
})
