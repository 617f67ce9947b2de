import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { assertBuilt, cliPath, repoRoot, runCli, startServer, stop } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

/**
 * The server's token is a secret; a process's arguments are not: any local user reads them
 * (`ps`, `/proc/<pid>/cmdline`). `--token VALUE` put it there, for `serve` and for every client
 * command with `--server`. It is now refused (exit 2, naming the safe ways) and the token comes
 * from `$CUSTOM_AGENT_TOKEN` or `--token-file PATH`, which keep it out of every argv. Runs the
 * built CLI (`npm run build` first).
 */

const temp = makeTemp()
afterAll(temp.cleanup)

const secret = "s3cret-token-never-on-argv-0123456789"

/** What another local user sees of a process's command line. */
const cmdlineOf = (pid: number | undefined) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ")

interface Outcome {
  readonly code: number | null
  readonly stderr: string
  /** The command line, read while the process ran and had done `until`. */
  readonly cmdline?: string
}

/** Runs the CLI until it exits, or until its output matches `until` (then its cmdline is read and it is stopped). */
const runUntil = (args: ReadonlyArray<string>, env: Record<string, string>, until: RegExp) =>
  new Promise<Outcome>((resolve, reject) => {
    assertBuilt()
    const child: ChildProcess = spawn(process.execPath, [cliPath, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env["PATH"], HOME: process.env["HOME"], NO_COLOR: "1", ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let output = ""
    let stderr = ""
    let cmdline: string | undefined
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`custom-agent ${args.join(" ")} neither exited nor matched ${until}:\n${output}`))
    }, 30_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8")
      if (cmdline === undefined && until.test(output)) {
        cmdline = cmdlineOf(child.pid)
        child.kill("SIGTERM")
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
      onData(chunk)
    })
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, stderr, ...(cmdline === undefined ? {} : { cmdline }) })
    })
  })

const tokenFile = () => {
  const file = join(temp.dir("token-"), "token")
  writeFileSync(file, `${secret}\n`, { mode: 0o600 })
  return file
}

const asksForWrite = () => {
  const script = join(temp.dir("script-"), "script.json")
  writeFileSync(script, JSON.stringify({ responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "x.txt", content: "x" } } }] }, "done"] }))
  return script
}

describe("security: the server token never goes on a command line", () => {
  it("serve --token VALUE is refused before it serves, naming the safe ways (exit 2)", { timeout: 60_000 }, async () => {
    const outcome = await runUntil(["serve", "--port", "0", "--token", secret], { CUSTOM_AGENT_HOME: temp.dir("home-") }, /custom-agent is serving/)
    // Without the rule it serves, and every local user reads the token in its command line.
    expect(outcome.cmdline ?? "").not.toContain(secret)
    expect(outcome.code).toBe(2)
    expect(outcome.stderr).toContain("--token is refused")
    expect(outcome.stderr).toContain("CUSTOM_AGENT_TOKEN")
    expect(outcome.stderr).toContain("--token-file")
    expect(outcome.stderr).not.toContain(secret)
  })

  it("a client's --token VALUE is refused before it connects (exit 2), for run and sessions", { timeout: 60_000 }, async () => {
    const home = temp.dir("home-")
    const server = await startServer(["--script", asksForWrite()], { env: { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_TOKEN: secret } })
    try {
      const workspace = temp.dir("ws-")
      const run = await runUntil(["run", "write it", "--server", server.url, "--token", secret], { CUSTOM_AGENT_HOME: temp.dir("unused-") }, /waiting for a client/)
      expect(run.cmdline ?? "").not.toContain(secret)
      expect(run.code).toBe(2)
      expect(run.stderr).toContain("--token is refused")
      const list = await runCli(["sessions", "list", "--server", server.url, `--token=${secret}`], { cwd: workspace })
      expect(list.code).toBe(2)
      expect(list.stderr).toContain("--token-file")
    } finally {
      await stop(server.child)
    }
  })

  it("with --token-file or $CUSTOM_AGENT_TOKEN the server and its clients work, and no argv holds the token", { timeout: 60_000 }, async () => {
    const file = tokenFile()
    const served = await runUntil(["serve", "--port", "0", "--token-file", file], { CUSTOM_AGENT_HOME: temp.dir("home-") }, /custom-agent is serving/)
    expect(served.cmdline).toBeDefined()
    expect(served.cmdline).toContain("--token-file")
    expect(served.cmdline).not.toContain(secret)

    const server = await startServer(["--token-file", file, "--script", asksForWrite()], { env: { CUSTOM_AGENT_HOME: temp.dir("home-") } })
    try {
      expect(server.token).toBe(secret)
      expect(cmdlineOf(server.child.pid)).not.toContain(secret)
      // A client that authenticated and waits on the turn's question: its command line, then.
      for (const [args, env] of [
        [["--token-file", file], {}],
        [[], { CUSTOM_AGENT_TOKEN: secret }]
      ] as const) {
        const client = await runUntil(["run", "write it", "--server", server.url, ...args], { CUSTOM_AGENT_HOME: temp.dir("unused-"), ...env }, /waiting for a client/)
        expect(client.cmdline, client.stderr).toBeDefined()
        expect(client.cmdline).not.toContain(secret)
      }
      const wrong = await runCli(["sessions", "list", "--server", server.url], { env: { CUSTOM_AGENT_TOKEN: "not-the-token" } })
      expect(wrong.code).toBe(1)
    } finally {
      await stop(server.child)
    }
  })

  it("--token-file reads only a regular file, bounded", { timeout: 60_000 }, async () => {
    const dir = temp.dir("token-dir-")
    const big = join(dir, "big")
    writeFileSync(big, "x".repeat(10_000))
    const empty = join(dir, "empty")
    writeFileSync(empty, "\n")
    for (const [path, problem] of [
      [dir, "is not a regular file (a directory)"],
      ["/dev/zero", "is not a regular file (a device)"],
      [big, "is larger than"],
      [empty, "is empty"],
      [join(dir, "missing"), "no such file"]
    ] as const) {
      const result = await runCli(["sessions", "list", "--server", "http://127.0.0.1:9", "--token-file", path])
      expect(result.code, path).toBe(2)
      expect(result.stderr, path).toContain(problem)
    }
  })
})
