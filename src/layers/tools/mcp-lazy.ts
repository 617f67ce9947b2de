import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { existsSync } from "node:fs"
import { McpError, McpHub, type McpHubShape, type McpServerConfig } from "../../services/McpHub.js"
import type { McpHubOptions } from "./mcp.js"
import { projectConfigFile, userConfigFile } from "./mcp-config.js"

interface Known {
  cwd: string | undefined
  extra: ReadonlyArray<McpServerConfig>
}

/**
 * How long after the request that first needed a session's servers they begin to start:
 * loading the MCP SDK holds this thread for a while (about 0.1 s on a small machine), and
 * that request, on its way by then, should not wait for it.
 */
export const START_DELAY_MS = 100

/**
 * The MCP hub as the app runs it, loaded (with the MCP SDK) only once a session has servers
 * to run: a configuration file for its workspace or the user, or servers a client gave it.
 * Sessions without a server, which is most runs, never pay for it: `awaitServers`, which the
 * engine calls before each model step, returns at once for them.
 *
 * For a session with servers, `awaitServers` loads the hub and waits for the servers up to
 * the start-up wait (`McpHubOptions.startupWaitMs`), so the first request of a one-shot `run`
 * offers the tools of the servers that started in time; a slow one is noticed and joins a
 * later step. A listing of tools or instructions outside a turn, before the hub is loaded,
 * does not wait: the SDK loads and the servers start in the background.
 */
export const make = (options: McpHubOptions): Effect.Effect<McpHubShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const real = yield* Effect.cached(
      Effect.promise(() => import("./mcp.js")).pipe(Effect.flatMap((mcp) => mcp.make(options)), Scope.extend(scope))
    )
    let loaded: McpHubShape | undefined
    const load = Effect.tap(real, (hub) => Effect.sync(() => (loaded = hub)))
    const sessions = new Map<string, Known>()
    const known = (sessionId: string): Known => {
      const found = sessions.get(sessionId) ?? { cwd: undefined, extra: [] }
      sessions.set(sessionId, found)
      return found
    }
    /** A session nobody configured takes its project servers from its workspace. */
    const adoptWorkspace = (sessionId: string, cwd: string | undefined) => {
      known(sessionId).cwd ??= cwd
    }
    const hasServers = (sessionId: string) => {
      const session = known(sessionId)
      return (
        session.extra.length > 0 ||
        existsSync(userConfigFile(options.userConfigDir)) ||
        (session.cwd !== undefined && existsSync(projectConfigFile(session.cwd)))
      )
    }
    /** The real hub when this session needs it (or it runs already), else the answer for "no servers". */
    const whenServers = <A, E>(sessionId: string, none: Effect.Effect<A, E>, use: (hub: McpHubShape) => Effect.Effect<A, E>) =>
      Effect.suspend(() => (loaded !== undefined ? use(loaded) : hasServers(sessionId) ? Effect.flatMap(load, use) : none))
    /** A listing before the hub is loaded: none yet, and the load and the start in the background (see `make`). */
    const listing = <A>(sessionId: string, none: A, use: (hub: McpHubShape) => Effect.Effect<A>) =>
      Effect.suspend(() => {
        if (loaded !== undefined) return use(loaded)
        if (!hasServers(sessionId)) return Effect.succeed(none)
        return Effect.as(Effect.forkIn(Effect.delay(Effect.flatMap(load, use), Duration.millis(START_DELAY_MS)), scope), none)
      })

    return McpHub.of({
      source: {
        name: "mcp",
        tools: (scope) =>
          Effect.suspend(() => {
            adoptWorkspace(scope.sessionId, scope.workspaceRoot)
            return listing(scope.sessionId, [], (hub) => hub.source.tools(scope))
          })
      },
      awaitServers: (scope) =>
        Effect.suspend(() => {
          adoptWorkspace(scope.sessionId, scope.workspaceRoot)
          return whenServers(scope.sessionId, Effect.void, (hub) => hub.awaitServers(scope))
        }),
      configureSession: (sessionId, cwd, extra) =>
        Effect.suspend(() => {
          sessions.set(sessionId, { cwd, extra })
          return whenServers(sessionId, Effect.void, (hub) => hub.configureSession(sessionId, cwd, extra))
        }),
      status: (sessionId) => whenServers(sessionId, Effect.succeed([]), (hub) => hub.status(sessionId)),
      drainNotices: (sessionId) => Effect.suspend(() => (loaded === undefined ? Effect.succeed([]) : loaded.drainNotices(sessionId))),
      instructions: (sessionId) => listing(sessionId, [], (hub) => hub.instructions(sessionId)),
      readResource: (sessionId, uri, cwd) =>
        Effect.suspend(() => {
          adoptWorkspace(sessionId, cwd)
          return whenServers(sessionId, Effect.fail(new McpError({ server: "", message: `no MCP server of this session serves ${uri}` })), (hub) =>
            hub.readResource(sessionId, uri, cwd)
          )
        }),
      release: (sessionId) =>
        Effect.suspend(() => {
          if ((sessions.get(sessionId)?.extra.length ?? 0) === 0) sessions.delete(sessionId)
          return loaded === undefined ? Effect.void : loaded.release(sessionId)
        })
    })
  })

export const layer = (options: McpHubOptions) => Layer.scoped(McpHub, make(options))
