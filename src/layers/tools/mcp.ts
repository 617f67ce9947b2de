import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { McpError, McpHub, type McpHubShape, type McpNotice, type McpServerConfig } from "../../services/McpHub.js"
import type { SandboxShape } from "../../services/Sandbox.js"
import type { EnvironmentPolicy } from "../../services/SubprocessEnvironment.js"
import type { ToolSource } from "../../services/ToolRouter.js"
import { type ConfiguredServer, configFiles, mergeServers, readConfigFile } from "./mcp-config.js"
import { type Connection, connect } from "./mcp-connection.js"
import { readUserEnvironmentPolicy } from "../subprocess-env-settings.js"

export interface McpHubOptions {
  /** The user's configuration directory, holding `mcp.json`. */
  readonly userConfigDir: string
  /** How long a server may take to start (initialize and list its tools); a server's `startupTimeout` overrides it. Default 30 s. */
  readonly startupTimeoutMs?: number
  /** How long a tool call may take before it is cancelled; a server's `timeout` overrides it. Default 120 s. */
  readonly toolTimeoutMs?: number
  /** The version we report to servers in `initialize`. */
  readonly clientVersion?: string
  /** Where `${VAR}` references in configuration files are looked up; `process.env` by default. */
  readonly env?: NodeJS.ProcessEnv
  /** Where stdio servers run, with the session's directory as their workspace (HTTP servers are remote: not sandboxed). */
  readonly sandbox: SandboxShape
  /** What stdio servers inherit of our environment besides their entry's `env`; default: what `settings.json` in `userConfigDir` passes. */
  readonly environment?: EnvironmentPolicy
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000

interface Running {
  readonly scope: Scope.CloseableScope
  readonly connections: Deferred.Deferred<ReadonlyArray<Connection>>
}

interface SessionEntry {
  cwd: string | undefined
  extra: ReadonlyArray<McpServerConfig>
  notices: Array<McpNotice>
  running: Running | undefined
}

/**
 * The MCP servers of each session. A session's servers are those of the user's `mcp.json`,
 * the project's `.custom-agent/mcp.json` (for the cwd given to `configureSession`; a session
 * never configured has only the user's) and those given to `configureSession`, later ones
 * overriding earlier ones of the same name; an entry with `disabled: true` is left out. They
 * start, concurrently, the first time the session's tools, status or instructions are asked
 * for, and stop on `release` or when the hub's scope closes. A malformed configuration file is
 * noticed (as a "failed" notice named after the file, in the session's log; `run` also says
 * it on stderr, once) and its servers are left out; the other file still applies.
 */
export const make = (options: McpHubOptions): Effect.Effect<McpHubShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const hubScope = yield* Effect.scope
    const lock = yield* Effect.makeSemaphore(1)
    const sessions = new Map<string, SessionEntry>()
    const env = options.env ?? process.env
    const environment = options.environment ?? (yield* readUserEnvironmentPolicy(options.userConfigDir))

    const entryOf = (sessionId: string): SessionEntry => {
      const existing = sessions.get(sessionId)
      if (existing !== undefined) return existing
      const created: SessionEntry = { cwd: undefined, extra: [], notices: [], running: undefined }
      sessions.set(sessionId, created)
      return created
    }

    const serversOf = (entry: SessionEntry): Effect.Effect<ReadonlyArray<ConfiguredServer>> =>
      Effect.gen(function* () {
        const files = configFiles({ userConfigDir: options.userConfigDir, ...(entry.cwd === undefined ? {} : { cwd: entry.cwd }) })
        const groups = yield* Effect.forEach(files, ({ file, origin }) =>
          readConfigFile(file, origin, env).pipe(
            Effect.catchAll((error) =>
              Effect.sync(() => {
                entry.notices.push({ server: error.file, state: "failed", message: error.problem })
                return []
              })
            )
          )
        )
        const session = entry.extra.map((config): ConfiguredServer => ({ config, origin: "session" }))
        return mergeServers(...groups, session).filter((server) => server.disabled !== true)
      })

    const startAll = (entry: SessionEntry, scope: Scope.Scope): Effect.Effect<ReadonlyArray<Connection>> =>
      Effect.gen(function* () {
        const servers = yield* serversOf(entry)
        return yield* Effect.forEach(
          servers,
          (server) =>
            connect(server, {
              sessionCwd: entry.cwd,
              startupTimeoutMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
              toolTimeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
              clientVersion: options.clientVersion ?? "0.0.0",
              sandbox: options.sandbox,
              environment,
              notify: (notice) => entry.notices.push(notice)
            }).pipe(Scope.extend(scope)),
          { concurrency: "unbounded" }
        )
      })

    /** The session's servers, started on first use; later callers wait for the same start. */
    const connections = (sessionId: string): Effect.Effect<ReadonlyArray<Connection>> =>
      lock
        .withPermits(1)(
          Effect.gen(function* () {
            const entry = entryOf(sessionId)
            if (entry.running !== undefined) return entry.running.connections
            // Servers stop together, in parallel: each stdio server may take a moment to exit.
            const scope = yield* Scope.fork(hubScope, ExecutionStrategy.parallel)
            const started = yield* Deferred.make<ReadonlyArray<Connection>>()
            entry.running = { scope, connections: started }
            // The start belongs to the session, not to whoever asked first: interrupting the
            // asker does not abandon it, and a release during the start leaves no servers.
            yield* startAll(entry, scope).pipe(
              Effect.flatMap((list) => Deferred.succeed(started, list)),
              // Interrupted by a release: whoever waits gets no servers (a no-op once started).
              Effect.ensuring(Deferred.succeed(started, [])),
              Effect.forkIn(scope)
            )
            return started
          })
        )
        .pipe(Effect.flatMap(Deferred.await))

    /** Detaches the session's servers (under the lock) and stops them (outside it). */
    const stop = (detach: () => Running | undefined): Effect.Effect<void> =>
      lock.withPermits(1)(Effect.sync(detach)).pipe(
        Effect.flatMap((running) => (running === undefined ? Effect.void : Scope.close(running.scope, Exit.void)))
      )

    /** A session nobody configured takes its project servers from its workspace. */
    const adoptWorkspace = (sessionId: string, cwd: string | undefined) => {
      const entry = entryOf(sessionId)
      if (entry.cwd === undefined && entry.running === undefined) entry.cwd = cwd
    }

    const source: ToolSource = {
      name: "mcp",
      tools: (scope) =>
        Effect.sync(() => adoptWorkspace(scope.sessionId, scope.workspaceRoot)).pipe(Effect.zipRight(connections(scope.sessionId)), Effect.map((list) => list.flatMap((connection) => connection.tools())))
    }

    const configureSession: McpHubShape["configureSession"] = (sessionId, cwd, extra) =>
      stop(() => {
        const entry = entryOf(sessionId)
        entry.cwd = cwd
        entry.extra = extra
        // Reconfiguring a started session restarts its servers on next use, with the new configuration.
        const running = entry.running
        entry.running = undefined
        return running
      })

    const status: McpHubShape["status"] = (sessionId) =>
      Effect.map(connections(sessionId), (list) => list.map((connection) => connection.status()))

    const drainNotices: McpHubShape["drainNotices"] = (sessionId) =>
      Effect.sync(() => sessions.get(sessionId)?.notices.splice(0) ?? [])

    const instructions: McpHubShape["instructions"] = (sessionId) =>
      Effect.map(connections(sessionId), (list) =>
        list.flatMap((connection) => {
          const text = connection.instructions()
          return text === undefined || text.trim() === "" ? [] : [{ server: connection.name, text }]
        })
      )

    const readResource: McpHubShape["readResource"] = (sessionId, uri, cwd) =>
      Effect.gen(function* () {
        adoptWorkspace(sessionId, cwd)
        const list = yield* connections(sessionId)
        for (const connection of list) {
          if (yield* connection.listsResource(uri)) return yield* connection.readResource(uri)
        }
        // Resources made from templates are not listed: ask each server in turn.
        const refusals: Array<string> = []
        for (const connection of list) {
          if (connection.status().state !== "ready") continue
          const read = yield* Effect.either(connection.readResource(uri))
          if (read._tag === "Right") return read.right
          refusals.push(read.left.message)
        }
        return yield* new McpError({
          server: "*",
          message: `no MCP server of this session has the resource ${uri}${refusals.length === 0 ? "" : ` (${refusals.join("; ")})`}`
        })
      })

    const release: McpHubShape["release"] = (sessionId) =>
      stop(() => {
        const entry = sessions.get(sessionId)
        const running = entry?.running
        // Servers a client gave the session are its configuration, not a cache: kept for its next use.
        if (entry !== undefined && entry.extra.length > 0) {
          entry.running = undefined
          entry.notices.length = 0
        } else sessions.delete(sessionId)
        return running
      })

    return McpHub.of({ source, configureSession, status, drainNotices, instructions, readResource, release })
  })

export const layer = (options: McpHubOptions) => Layer.scoped(McpHub, make(options))
