import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"

export const repoRoot = resolve(import.meta.dirname, "../..")
export const cliPath = join(repoRoot, "bin", "custom-agent.js")

/** The CLI tests run the built program, as a user would: make its absence a clear failure. */
export const assertBuilt = () => {
  if (!existsSync(join(repoRoot, "dist", "bundle", "cli.js"))) {
    throw new Error("dist/ is missing: run `npm run build` first (npm test does)")
  }
}

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export interface CliOptions {
  readonly env?: Record<string, string | undefined>
  /** `serve`'s port (default 0: one the system picks). */
  readonly port?: number
  readonly cwd?: string
  readonly input?: string
  readonly timeoutMs?: number
}

/** Runs `custom-agent <args>` to completion with a clean environment plus `env`. */
export const runCli = (args: ReadonlyArray<string>, options: CliOptions = {}): Promise<CliResult> =>
  new Promise((resolvePromise, reject) => {
    assertBuilt()
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { PATH: process.env["PATH"], HOME: process.env["HOME"], NO_COLOR: "1", ...options.env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`custom-agent ${args.join(" ")} timed out\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, options.timeoutMs ?? 30_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolvePromise({ code, stdout, stderr })
    })
    child.stdin.end(options.input ?? "")
  })

/** Starts `custom-agent serve` and resolves with its URL and token once it listens. */
export const startServer = (args: ReadonlyArray<string>, options: CliOptions = {}) =>
  new Promise<{ readonly url: string; readonly token: string; readonly child: ChildProcess; readonly output: () => string }>((resolvePromise, reject) => {
    assertBuilt()
    const child = spawn(process.execPath, [cliPath, "serve", "--port", String(options.port ?? 0), ...args], {
      cwd: options.cwd ?? repoRoot,
      env: { PATH: process.env["PATH"], HOME: process.env["HOME"], NO_COLOR: "1", ...options.env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`serve did not start:\n${out}`))
    }, options.timeoutMs ?? 30_000)
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const opened = /open (http:\/\/[^\s/]+)\/#token=(\S+)\n/.exec(out)
      if (opened?.[1] !== undefined && opened[2] !== undefined) {
        clearTimeout(timer)
        resolvePromise({ url: opened[1], token: opened[2], child, output: () => out })
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
    child.on("error", reject)
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`serve exited with ${code}:\n${out}`))
    })
  })

/** Stops a child and waits for it to be gone. */
export const stop = (child: ChildProcess) =>
  new Promise<void>((resolvePromise) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolvePromise()
    child.once("exit", () => resolvePromise())
    child.kill("SIGTERM")
    setTimeout(() => child.kill("SIGKILL"), 5_000).unref()
  })
