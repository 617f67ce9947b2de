import { Effect, Schema, type Scope } from "effect"
import { execFileSync, spawn } from "node:child_process"
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { homedir } from "node:os"
import { delimiter, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as SandboxLayer from "../../src/layers/sandbox/layer.js"
import type { SandboxShape, SandboxUnavailable } from "../../src/services/Sandbox.js"
import { tempDir } from "./mcp-fixtures.js"

/**
 * Whether bubblewrap is installed at all. Sandbox tests are skipped only when it is not (CI
 * installs it); a bwrap that is there but cannot run fails them, because they ask for `on`.
 */
export const bwrapInstalled = (process.env["PATH"] ?? "").split(delimiter).some((dir) => dir !== "" && existsSync(join(dir, "bwrap")))

/** The suite's name, saying why it was skipped when it is. */
export const sandboxSuite = (name: string) => (bwrapInstalled ? name : `${name} (SKIPPED: bwrap is not installed; apt-get install bubblewrap)`)

/** A temporary directory the sandbox sees read-only: under /var/tmp, not /tmp, which inside is a private tmpfs. */
const outsideDir = Effect.acquireRelease(
  Effect.sync(() => realpathSync(mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : homedir(), "sandbox-outside-")))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** What the user's rules and the remembered approvals hold at first: nothing in the sandbox may change them. */
export const USER_RULES = '{"rules":[]}\n'
export const APPROVALS = '{"approvals":[]}\n'

export interface Dirs {
  /** A git repository (symlinks resolved), the session's workspace. */
  readonly workspace: string
  /** A directory outside it and outside /tmp (which the sandbox replaces with its own), which nothing in the sandbox may change. */
  readonly outside: string
  readonly configDir: string
  readonly dataDir: string
}

/** A fresh git workspace, a directory outside it, and config and data directories (outside the workspace and /tmp unless `inside`). */
export const makeDirs = (options: { readonly inside?: boolean } = {}): Effect.Effect<Dirs, never, Scope.Scope> =>
  Effect.gen(function* () {
    const workspace = yield* tempDir("sandbox-ws-")
    const outside = yield* outsideDir
    execFileSync("git", ["init", "-q", workspace])
    const home = options.inside === true ? join(workspace, "home") : yield* outsideDir
    const configDir = join(home, "config")
    const dataDir = join(home, "data")
    for (const dir of [configDir, dataDir]) mkdirSync(dir, { recursive: true })
    writeFileSync(join(configDir, "permissions.json"), USER_RULES)
    writeFileSync(join(dataDir, "approvals.json"), APPROVALS)
    return { workspace, outside, configDir, dataDir }
  })

/** The real bubblewrap sandbox, required (`on`): a bwrap that cannot run fails the test rather than skipping it. */
export const realSandbox = (
  dirs: Pick<Dirs, "configDir" | "dataDir">,
  options: Partial<SandboxLayer.SandboxOptions> = {}
): Effect.Effect<SandboxShape, SandboxUnavailable, Scope.Scope> =>
  SandboxLayer.make({ mode: "on", configDir: dirs.configDir, dataDir: dirs.dataDir, ...options })

/** A TCP listener on the host's 127.0.0.1 that answers "hello" and counts connections; closed with the scope. */
export const hostListener = Effect.acquireRelease(
  Effect.async<{ readonly server: Server; readonly port: number; readonly connections: () => number }>((resume) => {
    let count = 0
    const server = createServer((socket) => {
      count++
      socket.end("hello from the host\n")
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ server, port, connections: () => count }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)

const root = fileURLToPath(new URL("../../", import.meta.url))
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href

/**
 * Runs `argv` holding `inherited` (descriptor number -> an open descriptor of this process),
 * left open without close-on-exec as a launcher's `exec 50>>~/.bashrc` leaves one (a number below
 * the highest named and not named is left closed). Resolves when it has exited.
 */
export const runHolding = (argv: readonly [string, ...Array<string>], inherited: Readonly<Record<number, number>>, env: NodeJS.ProcessEnv = process.env) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }, Error>((resume) => {
    const highest = Math.max(2, ...Object.keys(inherited).map(Number))
    const stdio = Array.from({ length: highest + 1 }, (_, fd): "ignore" | "pipe" | number => (fd === 1 || fd === 2 ? "pipe" : (inherited[fd] ?? "ignore")))
    const child = spawn(argv[0], argv.slice(1), { stdio, env })
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("error", (error) => resume(Effect.fail(error)))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => void child.kill("SIGKILL"))
  })

/** A host file opened for appending, closed with the scope: a descriptor to hand down. */
export const openForAppend = (path: string): Effect.Effect<number, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => openSync(path, "a")),
    (fd) => Effect.sync(() => closeSync(fd))
  )

const ShellOutcome = Schema.Struct({ output: Schema.String, isError: Schema.Boolean })

/**
 * One shell call in the real sandbox, made by an agent process of its own
 * (test/support/sandbox-shell-main.ts) started holding `inherited`, as `runHolding` starts it.
 */
export const shellInAgentHolding = (dirs: Dirs, command: string, inherited: Readonly<Record<number, number>>) =>
  runHolding(
    [process.execPath, "--import", tsxLoader, join(root, "test/support/sandbox-shell-main.ts"), dirs.workspace, dirs.configDir, dirs.dataDir, command],
    inherited
  ).pipe(
    Effect.flatMap(({ code, stdout, stderr }) =>
      code === 0
        ? Schema.decodeUnknown(Schema.parseJson(ShellOutcome))(stdout).pipe(Effect.mapError((error) => new Error(`${error.message}\n${stderr}`)))
        : Effect.fail(new Error(`the agent process exited with ${String(code)}: ${stderr}`))
    )
  )
