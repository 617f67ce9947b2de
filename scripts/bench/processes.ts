import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** Child processes for the benches: one measured run to completion, or a server kept for a while. */

export const repoRoot = path.resolve(import.meta.dirname, "../..")

/**
 * A private copy of the built CLI (bin/, dist/, package.json; node_modules linked), so a
 * rebuild in the shared checkout while the bench runs (`npm test` empties dist/bundle)
 * cannot break or change what is measured. Node resolves the link to the real path, so the
 * copy loads exactly what the checkout would. Returns the copy's bin/custom-agent.js once
 * `--help` runs from it; a copy taken in the middle of a rebuild is taken again.
 */
export const snapshotCli = async (into: string): Promise<string> => {
  if (!fs.existsSync(path.join(repoRoot, "dist"))) throw new Error("dist/ is missing: run `npm run build` first (`npm run bench` does)")
  for (let attempt = 1; ; attempt++) {
    const root = path.join(into, `build-${attempt}`)
    fs.mkdirSync(root, { recursive: true })
    for (const entry of ["bin", "dist", "package.json"]) fs.cpSync(path.join(repoRoot, entry), path.join(root, entry), { recursive: true })
    fs.symlinkSync(path.join(repoRoot, "node_modules"), path.join(root, "node_modules"), "dir")
    const cli = path.join(root, "bin", "custom-agent.js")
    const check = await timedRun([cli, "--help"], { cwd: root, env: cleanEnv(into) })
    if (check.code === 0) return cli
    if (attempt === 3) throw new Error(`the built CLI does not run:\n${check.stderr.slice(-2000)}`)
    await new Promise((resolve) => setTimeout(resolve, 5_000))
  }
}

/**
 * Nothing from the caller's shell leaks into a measurement (API keys, CUSTOM_AGENT_*,
 * NODE_OPTIONS, a user config with MCP servers): `home` stands in for the user's home and
 * holds an empty configuration directory.
 */
export const cleanEnv = (home: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  HOME: home,
  CUSTOM_AGENT_CONFIG_HOME: path.join(home, "config"),
  ...extra
})

export interface TimedRun {
  readonly code: number | null
  readonly wallSeconds: number
  readonly peakRssBytes: number
  /** User plus system CPU time of the process and its threads (GC helpers included), GNU time's %U + %S. */
  readonly cpuSeconds: number
  readonly stdout: string
  readonly stderr: string
}

const TIME = "/usr/bin/time"
let runCount = 0

/**
 * Runs `node <args>` to completion. Wall time: from just before spawning to the exit event,
 * taken here with the monotonic clock. Peak RSS: GNU time's %M, the child's ru_maxrss as the
 * kernel reports it to wait4() when the process ends, so the peak cannot be missed the way
 * polling /proc/<pid>/status (VmHWM) can miss the last moments before exit. The wrapper
 * costs about a millisecond of exec; `node -e 0` measured the same way shows the floor.
 */
export const timedRun = (
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: Readonly<Record<string, string>>; readonly timeoutMs?: number }
): Promise<TimedRun> =>
  new Promise((resolve, reject) => {
    if (!fs.existsSync(TIME)) {
      reject(new Error(`${TIME} is missing: the benches read peak RSS from GNU time (Debian package "time")`))
      return
    }
    const rssFile = path.join(os.tmpdir(), `bench-rss-${process.pid}-${++runCount}`)
    const start = performance.now()
    const child = spawn(TIME, ["-f", "%M %U %S", "-o", rssFile, process.execPath, ...args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let wallSeconds = 0
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000)
    child.on("exit", () => {
      wallSeconds = (performance.now() - start) / 1000
    })
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      try {
        // On a non-zero exit GNU time writes a "Command exited with ..." line before the figure.
        const lines = fs.readFileSync(rssFile, "utf8").trim().split("\n")
        const [kib, user, system] = (lines[lines.length - 1] ?? "").split(" ").map(Number)
        if (kib === undefined || user === undefined || system === undefined || ![kib, user, system].every(Number.isFinite)) {
          throw new Error(`unexpected ${TIME} output: ${lines.join(" / ")}`)
        }
        resolve({ code, wallSeconds, peakRssBytes: kib * 1024, cpuSeconds: user + system, stdout, stderr })
      } catch (error) {
        reject(error)
      } finally {
        fs.rmSync(rssFile, { force: true })
      }
    })
  })

const memoryField = (pid: number, field: "VmHWM" | "VmRSS"): number => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(status)
  if (match?.[1] === undefined) throw new Error(`no ${field} in /proc/${pid}/status`)
  return Number(match[1]) * 1024
}

export interface Service<A> {
  readonly pid: number
  /** What `ready` found in the output once the process was up. */
  readonly ready: A
  /** The process's peak RSS so far (VmHWM: exact while it runs, since the kernel keeps the high-water mark). */
  readonly peakRssBytes: () => number
  readonly rssBytes: () => number
  readonly output: () => string
  /** SIGTERM, then SIGKILL if it has not exited within 5 s; resolves once it has exited. */
  readonly stop: () => Promise<void>
}

/** Starts a long-running `node <args>` and resolves once `ready` finds what it needs in its output. */
export const startService = <A>(
  args: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly env: Readonly<Record<string, string>>
    readonly ready: (output: string) => A | undefined
    readonly timeoutMs?: number
  }
): Promise<Service<A>> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [...args], { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] })
    const pid = child.pid
    let out = ""
    let exited = false
    let settled = false
    const exit = new Promise<void>((onExit) =>
      child.on("exit", () => {
        exited = true
        onExit()
      })
    )
    const stop = async () => {
      if (exited) return
      child.kill("SIGTERM")
      const forced = setTimeout(() => child.kill("SIGKILL"), 5_000)
      await exit
      clearTimeout(forced)
    }
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void stop().then(() => reject(error))
    }
    const timer = setTimeout(() => fail(new Error(`${args.join(" ")} did not start in time:\n${out}`)), options.timeoutMs ?? 30_000)
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8")
      if (settled || pid === undefined) return
      const found = options.ready(out)
      if (found === undefined) return
      settled = true
      clearTimeout(timer)
      resolve({
        pid,
        ready: found,
        peakRssBytes: () => memoryField(pid, "VmHWM"),
        rssBytes: () => memoryField(pid, "VmRSS"),
        output: () => out,
        stop
      })
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", onData)
    child.on("error", (error) => fail(error))
    child.on("exit", (code, signal) => fail(new Error(`${args.join(" ")} exited (${code ?? signal}) before it was ready:\n${out}`)))
  })
