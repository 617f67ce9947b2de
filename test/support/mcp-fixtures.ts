import { Effect, type Scope } from "effect"
import { createHash } from "node:crypto"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import * as Mcp from "../../src/layers/tools/mcp.js"
import type { PermissionEngineShape } from "../../src/services/PermissionEngine.js"
import type { McpHubShape, McpNotice, McpServerConfig } from "../../src/services/McpHub.js"

const root = fileURLToPath(new URL("../../", import.meta.url))

/**
 * test/support/mcp-test-server.ts as JavaScript, compiled when its text (or how it is compiled)
 * changed and kept under node_modules/.cache, named by that text's hash, where its imports
 * resolve. Each start is then plain node: run through the tsx loader, every start compiled it
 * again, about 0.9 s of CPU against 0.35 s, and the fast lane starts it some forty times.
 */
const testServerScript = await (async () => {
  const options = { loader: "ts", format: "esm", target: "node20" } as const
  const source = readFileSync(join(root, "test/support/mcp-test-server.ts"), "utf8")
  const hash = createHash("sha256").update(JSON.stringify(options)).update(source).digest("hex").slice(0, 16)
  const dir = join(root, "node_modules/.cache/custom-agent-tests")
  const script = join(dir, `mcp-test-server-${hash}.mjs`)
  if (existsSync(script)) return script
  const { transformWithEsbuild } = await import("vite")
  const { code } = await transformWithEsbuild(source, "mcp-test-server.ts", options)
  mkdirSync(dir, { recursive: true })
  // Written aside and renamed: another worker may be writing the same file at the same time.
  const partial = `${script}.${process.pid}.partial`
  writeFileSync(partial, code)
  renameSync(partial, script)
  return script
})()

/** A temporary directory (symlinks resolved), removed with the scope. */
export const tempDir = (prefix: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => realpathSync(mkdtempSync(join(tmpdir(), prefix)))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** Our own test server (test/support/mcp-test-server.ts, compiled), run by node, whatever the cwd. */
export const testServer = (name: string, env: Record<string, string> = {}): McpServerConfig => ({
  name,
  command: process.execPath,
  args: [testServerScript],
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
