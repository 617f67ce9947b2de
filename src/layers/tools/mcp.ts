import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import { messageOf } from "../../domain/cause-message.js"
import { McpError, McpHub, type McpHubShape, type McpNotice, type McpServerConfig } from "../../services/McpHub.js"
import type { PermissionEngineShape } from "../../services/PermissionEngine.js"
import type { SandboxShape } from "../../services/Sandbox.js"
import type { EnvironmentPolicy } from "../../services/SubprocessEnvironment.js"
import type { ToolSource } from "../../services/ToolRouter.js"
import { admitServers, type ProjectServersTrust, type SkippedServer, skippedStatus } from "./mcp-admission.js"
import { type ConfiguredServer, type McpConfigError, mergeServers, projectConfigFile, readConfigFile, userConfigFile } from "./mcp-config.js"
import { type Connection, connect, seconds } from "./mcp-connection.js"
import { readUserEnvironmentPolicy } from "../subprocess-env-settings.js"
import { readStartupWait } from "./mcp-wait.js"

export interface McpHubOptions {
  /** The user's configuration directory, holding `mcp.json`. */
  readonly userConfigDir: string
  /** How long a server may take to start (initialize and list its tools); a server's `startupTimeout` overrides it. Default 30 s. */
  readonly startupTimeoutMs?: number
  /**
   * How long a session's first model step waits for its servers to start (`awaitServers`,
   * counted from their start; 0: not at all); default: `MCP_TIMEOUT` in `env`, else
   * `mcp.startupWait` in the user's `settings.json`, else 10 s (`mcp-wait.ts`).
   */
  readonly startupWaitMs?: number
  /** How long a tool call may take before it is cancelled; a server's `timeout` overrides it. Default 120 s. */
  readonly toolTimeoutMs?: number
  /** The version we report to servers in `initialize`. */
  readonly clientVersion?: string
  /** Where `${VAR}` references in the user's configuration file are looked up; `process.env` by default (a project's file is never expanded). */
  readonly env?: NodeJS.ProcessEnv
  /**
   * Whether a workspace's configuration is trusted, and for which MCP servers (the permission
   * engine's `projectTrust`). Without it a project's servers never start.
   */
  readonly projectTrust?: PermissionEngineShape["projectTrust"]
  /** Where stdio servers run, with the session's directory as their workspace (HTTP servers are remote: not sandboxed). */
  readonly sandbox: SandboxShape
  /** What stdio servers inherit of our environment besides their entry's `env`; default: what `settings.json` in `userConfigDir` passes. */
  readonly environment?: EnvironmentPolicy
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 30_000
export const DEFAULT_TOOL_TIMEOUT_MS = 120_000

/** A configured server and, once it finished starting (ready or failed), its connection. */
interface Slot {
  readonly server: ConfiguredServer
  connection: Connection | undefined
}

/** A session's servers as their start goes: filled in as the configuration is read and each server finishes starting. */
interface Running {
  readonly scope: Scope.CloseableScope
  /** Done once every server finished starting, or the start was abandoned (a release). */
  readonly started: Deferred.Deferred<void>
  /** Until when (clock milliseconds) a step waits for the start; from then on it takes the servers that are ready. */
  readonly waitUntil: number
  /** In the configuration's order, so the tools are listed in the same order whichever server was quicker. */
  slots: ReadonlyArray<Slot>
  skipped: ReadonlyArray<SkippedServer>
  /** Servers still starting when the wait ended were noticed as slow (once). */
  slowNoticed: boolean
}

interface SessionEntry {
  cwd: string | undefined
  extra: ReadonlyArray<McpServerConfig>
  notices: Array<McpNotice>
  running: Running | undefined
}

/**
 * The MCP servers of each session. A session's servers are the user's own, from their
 * `mcp.json` and from `configureSession` (a client's, which override the file's of the same
 * name), and the project's `.custom-agent/mcp.json` (for the cwd given to `configureSession`
 * or the session's workspace) once that project's configuration is trusted as it is now;
 * a project's server named like one of the user's is left out, as is an entry with
 * `disabled: true`. Left-out servers are noticed ("skipped", with why) and never started. They
 * start, concurrently, the first time the session's tools, status or instructions are asked
 * for, and stop on `release` or when the hub's scope closes. Tools and instructions wait for
 * the start only until the session's start-up wait ends (then a server still starting is
 * noticed as "slow" and joins once ready); status and attachments wait for every server. A malformed configuration file is
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
    const startupWaitMs = options.startupWaitMs ?? (yield* readStartupWait(options.userConfigDir, env))

    const entryOf = (sessionId: string): SessionEntry => {
      const existing = sessions.get(sessionId)
      if (existing !== undefined) return existing
      const created: SessionEntry = { cwd: undefined, extra: [], notices: [], running: undefined }
      sessions.set(sessionId, created)
      return created
    }

    /** A malformed file is noticed (named after the file) and has no servers; the other still applies. */
    const noticed = (entry: SessionEntry) => (error: McpConfigError) =>
      Effect.sync(() => {
        entry.notices.push({ server: error.file, state: "failed", message: `${error.problem}; its MCP servers are left out` })
        return []
      })

    /** What the project's trust covers now; a trust that cannot be read covers nothing. */
    const projectServersTrust = (cwd: string): Effect.Effect<ProjectServersTrust> => {
      const lookup = options.projectTrust
      if (lookup === undefined) return Effect.succeed({ trusted: false, why: "this client does not trust projects' MCP servers" })
      return lookup(cwd).pipe(
        Effect.map((trust): ProjectServersTrust =>
          trust.trusted ? { trusted: true, servers: trust.mcpServers ?? [] } : { trusted: false, why: "the project's configuration is not trusted" }
        ),
        Effect.catchAll((error) => Effect.succeed<ProjectServersTrust>({ trusted: false, why: `the project's trust cannot be read (${messageOf(error)})` }))
      )
    }

    const serversOf = (entry: SessionEntry): Effect.Effect<{ readonly servers: ReadonlyArray<ConfiguredServer>; readonly skipped: ReadonlyArray<SkippedServer> }> =>
      Effect.gen(function* () {
        const user = yield* readConfigFile(userConfigFile(options.userConfigDir), "user", env).pipe(Effect.catchAll(noticed(entry)))
        const session = entry.extra.map((config): ConfiguredServer => ({ config, origin: "session" }))
        const cwd = entry.cwd
        const project = cwd === undefined ? [] : yield* readConfigFile(projectConfigFile(cwd), "project").pipe(Effect.catchAll(noticed(entry)))
        // The trust is asked for after the file is read: the servers started are the ones it covers.
        const trust = cwd === undefined || project.length === 0 ? { trusted: false as const, why: "" } : yield* projectServersTrust(cwd)
        const { servers, skipped } = admitServers(mergeServers(user, session), project, trust)
        for (const { server, reason } of skipped) entry.notices.push({ server: server.config.name, state: "skipped", message: reason })
        return { servers: servers.filter((server) => server.disabled !== true), skipped }
      })

    /** Reads the configuration, then starts its servers concurrently, each filling its slot when it is ready or failed. */
    const startAll = (entry: SessionEntry, running: Running): Effect.Effect<void> =>
      Effect.gen(function* () {
        const { servers, skipped } = yield* serversOf(entry)
        const slots = servers.map((server): Slot => ({ server, connection: undefined }))
        running.slots = slots
        running.skipped = skipped
        yield* Effect.forEach(
          slots,
          (slot) =>
            connect(slot.server, {
              sessionCwd: entry.cwd,
              startupTimeoutMs: options.startupTimeoutMs ?? DEFAULT_STARTUP_TIMEOUT_MS,
              toolTimeoutMs: options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
              clientVersion: options.clientVersion ?? "0.0.0",
              sandbox: options.sandbox,
              environment,
              notify: (notice) => entry.notices.push(notice)
            }).pipe(
              Scope.extend(running.scope),
              Effect.map((connection) => {
                slot.connection = connection
              })
            ),
          { concurrency: "unbounded", discard: true }
        )
      })

    /** The session's servers, whose start begins on first use; later callers see the same start. */
    const runningOf = (sessionId: string): Effect.Effect<Running> =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const entry = entryOf(sessionId)
          if (entry.running !== undefined) return entry.running
          // Servers stop together, in parallel: each stdio server may take a moment to exit.
          const scope = yield* Scope.fork(hubScope, ExecutionStrategy.parallel)
          const started = yield* Deferred.make<void>()
          const running: Running = { scope, started, waitUntil: (yield* Clock.currentTimeMillis) + startupWaitMs, slots: [], skipped: [], slowNoticed: false }
          entry.running = running
          // The start belongs to the session, not to whoever asked first: interrupting the
          // asker does not abandon it, and a release during the start leaves no servers.
          yield* startAll(entry, running).pipe(
            // Interrupted by a release: whoever waits is let go (a no-op once started).
            Effect.ensuring(Deferred.succeed(started, undefined)),
            Effect.forkIn(scope)
          )
          return running
        })
      )

    const finished = (running: Running): ReadonlyArray<Connection> => running.slots.flatMap((slot) => (slot.connection === undefined ? [] : [slot.connection]))

    /** Every server of the session once all finished starting (each within its own start-up timeout): for status and attachments. */
    const connections = (sessionId: string): Effect.Effect<ReadonlyArray<Connection>> =>
      Effect.flatMap(runningOf(sessionId), (running) => Effect.map(Deferred.await(running.started), () => finished(running)))

    /**
     * The servers that finished starting, after waiting for the rest until the session's wait
     * ends; those still starting then are noticed as slow, once (with no wait, never: the caller
     * chose not to wait for them).
     */
    const settled = (sessionId: string): Effect.Effect<ReadonlyArray<Connection>> =>
      Effect.gen(function* () {
        const running = yield* runningOf(sessionId)
        const left = running.waitUntil - (yield* Clock.currentTimeMillis)
        const done = left > 0 ? Option.isSome(yield* Effect.timeoutOption(Deferred.await(running.started), Duration.millis(left))) : yield* Deferred.isDone(running.started)
        if (!done && !running.slowNoticed && startupWaitMs > 0) {
          running.slowNoticed = true
          const entry = entryOf(sessionId)
          for (const slot of running.slots) {
            if (slot.connection !== undefined) continue
            entry.notices.push({ server: slot.server.config.name, state: "slow", message: `not ready after ${seconds(startupWaitMs)}; its tools join a later step once it is ready` })
          }
        }
        return finished(running)
      })

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
        Effect.sync(() => adoptWorkspace(scope.sessionId, scope.workspaceRoot)).pipe(Effect.zipRight(settled(scope.sessionId)), Effect.map((list) => list.flatMap((connection) => connection.tools())))
    }

    const awaitServers: McpHubShape["awaitServers"] = (scope) =>
      Effect.sync(() => adoptWorkspace(scope.sessionId, scope.workspaceRoot)).pipe(Effect.zipRight(settled(scope.sessionId)), Effect.asVoid)

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
      Effect.flatMap(runningOf(sessionId), (running) =>
        Effect.map(Deferred.await(running.started), () => [
          // A server whose start a release interrupted has no connection, and is not listed: it never started.
          ...finished(running).map((connection) => connection.status()),
          ...running.skipped.map(skippedStatus)
        ])
      )

    const drainNotices: McpHubShape["drainNotices"] = (sessionId) =>
      Effect.sync(() => sessions.get(sessionId)?.notices.splice(0) ?? [])

    const instructions: McpHubShape["instructions"] = (sessionId) =>
      Effect.map(settled(sessionId), (list) =>
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

    return McpHub.of({ source, awaitServers, configureSession, status, drainNotices, instructions, readResource, release })
  })

export const layer = (options: McpHubOptions) => Layer.scoped(McpHub, make(options))
