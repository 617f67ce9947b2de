import { Effect, type Scope } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { homedir } from "node:os"
import { delimiter, join } from "node:path"
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
