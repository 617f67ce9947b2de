import { Effect, type Scope } from "effect"
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import * as Mcp from "../../src/layers/tools/mcp.js"
import type { PermissionEngineShape } from "../../src/services/PermissionEngine.js"
import type { McpHubShape, McpNotice, McpServerConfig } from "../../src/services/McpHub.js"

const root = fileURLToPath(new URL("../../", import.meta.url))
const tsxLoader = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href

/** A temporary directory (symlinks resolved), removed with the scope. */
export const tempDir = (prefix: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => realpathSync(mkdtempSync(join(tmpdir(), prefix)))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** Our own test server (test/support/mcp-test-server.ts), run by node with tsx, whatever the cwd. */
export const testServer = (name: string, env: Record<string, string> = {}): McpServerConfig => ({
  name,
  command: process.execPath,
  args: ["--import", tsxLoader, join(root, "test/support/mcp-test-server.ts")],
  env
})

/** The reference filesystem server, allowed to see `dir`. */
export const filesystemServer = (name: string, dir: string): McpServerConfig => ({
  name,
  command: process.execPath,
  args: [join(root, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"), dir],
  env: {}
})

/** The reference "everything" server, over stdio. */
export const everythingServer = (name: string): McpServerConfig => ({
  name,
  command: process.execPath,
  args: [join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
  env: {}
})

/** A hub whose user configuration directory is a fresh, empty temporary directory; servers run unsandboxed unless `options.sandbox` says otherwise. */
export const makeHub = (options: Partial<Mcp.McpHubOptions> = {}): Effect.Effect<McpHubShape, never, Scope.Scope> =>
  Effect.flatMap(tempDir("mcp-user-"), (userConfigDir) => Mcp.make({ userConfigDir, sandbox: sandboxOff, ...options }))

/**
 * The project's configuration trusted as it is now, as a person would after reading it (a
 * real permission engine, its trust file in a fresh directory); its `projectTrust` for a hub.
 */
export const trustedProject = (workspaceRoot: string): Effect.Effect<PermissionEngineShape["projectTrust"], unknown, Scope.Scope> =>
  Effect.gen(function* () {
    const data = yield* tempDir("mcp-trust-")
    const permissions = yield* Permissions.make({ approvalsFile: join(data, "approvals.json") })
    const status = yield* permissions.projectTrust(workspaceRoot)
    if (status.sha256 === undefined) return yield* Effect.dieMessage(`nothing to trust in ${workspaceRoot}`)
    yield* permissions.trustProject(workspaceRoot, status.sha256, "test")
    return permissions.projectTrust
  })

/** Drains the session's notices until one matches (polling, within `attempts` × 25 ms); returns all drained. */
export const awaitNotice = (hub: McpHubShape, sessionId: string, matches: (notice: McpNotice) => boolean, attempts = 400) =>
  Effect.gen(function* () {
    const seen: Array<McpNotice> = []
    for (let i = 0; i < attempts; i++) {
      seen.push(...(yield* hub.drainNotices(sessionId)))
      if (seen.some(matches)) return seen
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`no matching notice; saw ${JSON.stringify(seen)}`)
  })

/** Live (non-zombie) processes whose command line mentions `text`. */
export const processesMentioning = (text: string): ReadonlyArray<number> =>
  readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
        if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return false
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text)
      } catch {
        // Gone between the listing and the read.
        return false
      }
    })
    .map(Number)

/** Waits until no live process mentions `text`; gives the pids still there after `attempts` × 25 ms. */
export const awaitNoProcessMentioning = (text: string, attempts = 400) =>
  Effect.gen(function* () {
    for (let i = 0; i < attempts; i++) {
      if (processesMentioning(text).length === 0) return []
      yield* Effect.sleep("25 millis")
    }
    return processesMentioning(text)
  })
