import { afterAll, describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assertBuilt, cliPath, repoRoot, runCli } from "../support/cli.js"
import { parseEventLines } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

/** Runs the CLI with a reader that only starts reading its stdout after `delayMs`, so writes back up in the pipe. */
const runWithSlowReader = (args: ReadonlyArray<string>, env: Record<string, string>, delayMs: number) =>
  new Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resolve, reject) => {
    assertBuilt()
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env["PATH"], HOME: process.env["HOME"], NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const chunks: Array<Buffer> = []
    let stderr = ""
    child.stdout.pause()
    setTimeout(() => {
      child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
      child.stdout.resume()
    }, delayMs)
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(chunks).toString("utf8"), stderr }))
  })

describe("the CLI's exit", () => {
  it("output far larger than a pipe's buffer arrives whole when the reader is slow", async () => {
    const script = join(temps.dir("cli-exit-"), "script.json")
    const text = "x".repeat(1000)
    writeFileSync(script, JSON.stringify({ responses: [{ chunks: Array.from({ length: 400 }, () => ({ text })) }] }))
    const result = await runWithSlowReader(["run", "go", "--json", "--script", script], { CUSTOM_AGENT_HOME: temps.dir("cli-exit-home-") }, 500)
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(result.stdout.length).toBeGreaterThan(400_000)
    const events = parseEventLines(result.stdout)
    expect(events.filter((e) => e.type === "model.delta")).toHaveLength(400)
    expect(events.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "final" } })
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1))
  })

  it("Ctrl-C during a turn records it as cancelled and exits with 130", async () => {
    const home = temps.dir("cli-exit-home-")
    const script = join(temps.dir("cli-exit-"), "script.json")
    writeFileSync(script, JSON.stringify({ responses: [{ chunks: ["a", "b", "c", "d"].map((text) => ({ text })), delayMs: 300 }] }))
    const child = spawn(process.execPath, [cliPath, "run", "go", "--script", script], {
      cwd: repoRoot,
      env: { PATH: process.env["PATH"], HOME: process.env["HOME"], NO_COLOR: "1", CUSTOM_AGENT_HOME: home },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
      child.kill("SIGINT")
    })
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    expect(code).toBe(130)
    expect(stdout).toBe("a")
    const listed = await runCli(["sessions", "list"], { env: { CUSTOM_AGENT_HOME: home } })
    const sessionId = /ses_[a-z0-9]+/.exec(listed.stdout)?.[0] ?? ""
    const log = parseEventLines((await runCli(["sessions", "export", sessionId], { env: { CUSTOM_AGENT_HOME: home } })).stdout)
    expect(log.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "cancelled" } })
  })
})
