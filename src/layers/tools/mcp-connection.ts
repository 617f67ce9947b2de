import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  ErrorCode,
  McpError as ProtocolError,
  type ReadResourceResult,
  type Tool as ServerTool,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Scope from "effect/Scope"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import {
  McpError,
  type McpNotice,
  type McpResource,
  type McpServerConfig,
  type McpServerState,
  type McpServerStatus
} from "../../services/McpHub.js"
import type { SandboxProfile } from "../../domain/sandbox.js"
import type { SandboxShape } from "../../services/Sandbox.js"
import type { EnvironmentPolicy } from "../../services/SubprocessEnvironment.js"
import { childEnvironment } from "../subprocess-env.js"
import { findExecutable } from "../sandbox/executable.js"
import type { Tool } from "../../services/ToolRouter.js"
import type { ConfiguredServer } from "./mcp-config.js"
import { boundedFetch, type McpResponseTooLarge } from "./mcp-http-fetch.js"
import { modelToolName } from "./mcp-names.js"
import { toToolResult } from "./mcp-result.js"
import { StderrTail, withStderr } from "./mcp-stderr.js"
import { awaitExit, StdioTransport, terminate } from "./mcp-stdio.js"
import { type CallServerTool, makeServerTool } from "./mcp-tool.js"
import { errorResult } from "./tool-results.js"
import { messageOf } from "../../domain/cause-message.js"

export interface ConnectionOptions {
  /** The session's working directory: where stdio servers run, and what a relative `cwd` is relative to. */
  readonly sessionCwd: string | undefined
  readonly startupTimeoutMs: number
  readonly toolTimeoutMs: number
  readonly clientVersion: string
  /** Receives the server's state changes, for the session's log. */
  readonly notify: (notice: McpNotice) => void
  /** Where a stdio server runs; the session's directory (else ours) is its workspace. */
  readonly sandbox: SandboxShape
  /** What a stdio server inherits of our environment, besides the `env` its entry gives it. */
  readonly environment: EnvironmentPolicy
}

/** One running (or failed, or exited) server of a session. */
export interface Connection {
  readonly name: string
  readonly status: () => McpServerStatus
  /** The server's tools while it is ready; none otherwise. */
  readonly tools: () => ReadonlyArray<Tool>
  readonly instructions: () => string | undefined
  /** Whether the server lists `uri` among its resources (false when it has none or is not ready). */
  readonly listsResource: (uri: string) => Effect.Effect<boolean>
  readonly readResource: (uri: string) => Effect.Effect<McpResource, McpError>
}

class StartTimedOut extends Data.TaggedError("StartTimedOut")<{}> {}

/** Pages of a list request; a server that keeps sending cursors is cut off rather than followed forever. */
const MAX_PAGES = 100
/** How long one step of stopping a server may take (the SDK's stdio close takes up to 4 s). */
const STOP_STEP_WAIT = Duration.seconds(5)

/** A duration in words: `1.5 s`. */
export const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isProtocolError = (error: unknown, code: ErrorCode) => error instanceof ProtocolError && error.code === code

/** The resource's text contents joined; binary contents are described, not decoded. */
const toResource = (uri: string, result: ReadResourceResult): McpResource => {
  const parts = result.contents.map((content) =>
    "text" in content ? content.text : `[binary content${content.mimeType === undefined ? "" : ` (${content.mimeType})`}, ${content.blob.length} base64 characters]`
  )
  const mimeType = result.contents.find((content) => content.mimeType !== undefined)?.mimeType
  return { uri, text: parts.join("\n"), ...(mimeType === undefined ? {} : { mimeType }) }
}

/** Why a server could not start, in words a user can act on. */
const startFailure = (config: McpServerConfig, error: unknown): string => {
  if ("command" in config && isRecord(error) && error["code"] === "ENOENT") return `cannot run "${config.command}": command not found`
  if (isProtocolError(error, ErrorCode.ConnectionClosed)) return "exited during start-up"
  if (error instanceof StreamableHTTPError && error.code !== undefined && "url" in config) {
    return `cannot connect to ${config.url}: HTTP ${error.code} (${messageOf(error)})`
  }
  return `cannot start: ${messageOf(error)}`
}

/** A server's transport and, for a stdio server, the sandbox profile its process runs under. */
interface MadeTransport {
  readonly transport: Transport
  readonly sandbox?: SandboxProfile
}

/**
 * The server's transport, or why it cannot have one. Nothing is started yet; what the sandbox
 * prepares for it lasts as long as the scope. An HTTP server's every response is read within
 * the limits of `boundedFetch`; `onTooLarge` hears when one is broken.
 */
const makeTransport = (
  config: McpServerConfig,
  sessionCwd: string | undefined,
  stderr: StderrTail | undefined,
  sandbox: SandboxShape,
  environment: EnvironmentPolicy,
  onTooLarge: (error: McpResponseTooLarge) => void
): Effect.Effect<MadeTransport | string, never, Scope.Scope> =>
  Effect.gen(function* () {
    if ("command" in config) {
      const cwd = config.cwd === undefined ? sessionCwd : resolve(sessionCwd ?? ".", config.cwd)
      if (cwd !== undefined && !existsSync(cwd)) return `its working directory ${cwd} does not exist`
      const workspaceRoot = resolve(sessionCwd ?? ".")
      const profile = yield* sandbox.profile(workspaceRoot)
      // Inside the sandbox a missing command is bwrap's failure, not a spawn error: say it plainly first.
      if (profile._tag === "bwrap" && (yield* findExecutable(config.command, config.env["PATH"] ?? process.env["PATH"], cwd ?? workspaceRoot)) === undefined) {
        return `cannot run "${config.command}": command not found`
      }
      const wrapped = yield* Effect.either(
        // Not detached (the SDK spawns it): the sandbox gives it a session of its own, away from our terminal.
        sandbox.wrap({
          argv: [config.command, ...config.args],
          cwd: cwd ?? workspaceRoot,
          workspaceRoot,
          profile,
          detached: false,
          configuredPaths: [config.command, ...config.args, ...(cwd === undefined ? [] : [cwd])]
        })
      )
      if (wrapped._tag === "Left") return `cannot start it in the sandbox: ${wrapped.left.message}`
      const [command, ...args] = wrapped.right
      const transport = new StdioTransport({
        command,
        args,
        // The SDK adds its own defaults (HOME, LOGNAME, PATH, SHELL, TERM, USER), all on our allowlist.
        env: childEnvironment(environment, config.env),
        ...(cwd === undefined ? {} : { cwd }),
        // Piped, never inherited: a server's logging must not reach our stdout or terminal.
        stderr: "pipe"
      })
      transport.stderr?.on("data", (chunk: Buffer) => stderr?.append(chunk))
      return { transport, sandbox: profile }
    }
    let url: URL
    try {
      url = new URL(config.url)
    } catch {
      return `${config.url} is not a valid URL`
    }
    return {
      transport: new StreamableHTTPClientTransport(url, { requestInit: { headers: { ...config.headers } }, fetch: boundedFetch(config.name, onTooLarge) })
    }
  })

/**
 * Starts one server (stdio child process or Streamable HTTP session) in the current scope,
 * which stops it. Never fails: a server that cannot start is a Connection in state "failed"
 * with the reason (and the tail of its stderr), and it has no tools.
 */
export const connect = (server: ConfiguredServer, options: ConnectionOptions): Effect.Effect<Connection, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { config } = server
    const name = config.name
    const kind = "command" in config ? "stdio" : "http"
    const toolTimeoutMs = config.timeoutMs ?? options.toolTimeoutMs
    const startupTimeoutMs = config.startupTimeoutMs ?? options.startupTimeoutMs
    const stderr = kind === "stdio" ? new StderrTail() : undefined

    let state: McpServerState = "starting"
    let message: string | undefined
    let tools: ReadonlyArray<Tool> = []
    let instructions: string | undefined
    /** Set once the server is ready; the only way calls reach it. */
    let ready: Client | undefined
    let closing = false
    let toolsChangedWhileStarting = false
    /** Where a stdio server's process runs, recorded with each of its calls. */
    let profile: SandboxProfile | undefined
    /** Set once an HTTP server sent more than a response may carry: it is stopped, and whatever of its ends says why. */
    let tooLarge: McpResponseTooLarge | undefined

    const settle = (next: "ready" | "failed" | "exited", text: string) => {
      state = next
      message = next === "ready" ? undefined : text
      if (next !== "ready") {
        ready = undefined
        tools = []
      }
      options.notify({ server: name, state: next, message: text })
    }

    const exited = (reason: string) => {
      if (state === "ready" && !closing) settle("exited", withStderr(reason, stderr))
    }

    const describeCall = (tool: string, error: unknown): string => {
      if (tooLarge !== undefined) return `${tooLarge.message}; the call to ${tool} failed and the server was stopped`
      if (isProtocolError(error, ErrorCode.ConnectionClosed)) {
        exited("the server exited")
        return withStderr(`MCP server "${name}" exited during the call to ${tool}`, stderr)
      }
      if (isProtocolError(error, ErrorCode.RequestTimeout)) {
        return `MCP server "${name}" did not answer ${tool} within ${seconds(toolTimeoutMs)}; the call was cancelled`
      }
      return `MCP server "${name}" failed the call to ${tool}: ${messageOf(error)}`
    }

    const callTool: CallServerTool = (tool, args, traceparent) =>
      Effect.suspend(() => {
        const client = ready
        if (client === undefined) {
          return Effect.succeed(errorResult(`MCP server "${name}" is not running (${state}${message === undefined ? "" : `: ${message}`})`))
        }
        return Effect.tryPromise({
          try: (signal) =>
            client.callTool(
              // W3C trace context in `_meta`, as MCP clients that trace pass it: the server's own spans join the call's.
              { name: tool, arguments: { ...args }, ...(traceparent === undefined ? {} : { _meta: { traceparent } }) },
              undefined,
              { signal, timeout: toolTimeoutMs }
            ),
          catch: (error) => error
        }).pipe(
          Effect.map(toToolResult),
          Effect.catchAll((error) => Effect.sync(() => errorResult(describeCall(tool, error))))
        )
      })

    const toTools = (listed: ReadonlyArray<ServerTool>): ReadonlyArray<Tool> => {
      // Tools that only run as MCP tasks cannot be called with a plain tools/call.
      const usable = listed.filter((tool) => tool.execution?.taskSupport !== "required")
      return usable.map((tool) => makeServerTool(name, modelToolName(name, tool.name), tool, callTool, profile))
    }

    const listTools = (client: Client): Effect.Effect<ReadonlyArray<ServerTool>, unknown> =>
      Effect.gen(function* () {
        if (client.getServerCapabilities()?.tools === undefined) return []
        const all: Array<ServerTool> = []
        let cursor: string | undefined
        for (let page = 0; page < MAX_PAGES; page++) {
          const params = cursor === undefined ? undefined : { cursor }
          const listed = yield* Effect.tryPromise({ try: (signal) => client.listTools(params, { signal }), catch: (error) => error })
          all.push(...listed.tools)
          cursor = listed.nextCursor
          if (cursor === undefined) break
        }
        return all
      })

    const signature = (list: ReadonlyArray<Tool>) => JSON.stringify(list.map((tool) => tool.definition))

    const relistOnce = Effect.gen(function* () {
      const client = ready
      if (client === undefined) return
      const next = toTools(yield* listTools(client))
      if (ready !== client || signature(next) === signature(tools)) return
      const before = new Set(tools.map((tool) => tool.definition.name))
      const after = new Set(next.map((tool) => tool.definition.name))
      tools = next
      const added = [...after].filter((tool) => !before.has(tool))
      const removed = [...before].filter((tool) => !after.has(tool))
      const change = [...added.map((tool) => `+${tool}`), ...removed.map((tool) => `-${tool}`)]
      options.notify({ server: name, state: "tools_changed", message: change.length > 0 ? change.join(" ") : "tool descriptions changed" })
    }).pipe(Effect.catchAll((error) => Effect.logWarning(`MCP server ${name}: cannot re-list its tools: ${messageOf(error)}`)))

    // A server may send list_changed as often as it likes: notices that arrive while a re-list
    // is in flight fold into one more, so a flood queues no work (one fiber, two flags).
    let relisting = false
    let relistAgain = false
    const relistLoop: Effect.Effect<void> = Effect.suspend(() => {
      relistAgain = false
      return relistOnce.pipe(
        Effect.zipRight(
          Effect.suspend(() => {
            if (relistAgain) return relistLoop
            relisting = false
            return Effect.void
          })
        )
      )
    })
    const relist = () => {
      if (relisting) {
        relistAgain = true
        return
      }
      relisting = true
      run(relistLoop.pipe(Effect.onInterrupt(() => Effect.sync(() => (relisting = false)))))
    }

    const listsResource = (uri: string): Effect.Effect<boolean> =>
      Effect.gen(function* () {
        const client = ready
        if (client === undefined || client.getServerCapabilities()?.resources === undefined) return false
        let cursor: string | undefined
        for (let page = 0; page < MAX_PAGES; page++) {
          const params = cursor === undefined ? undefined : { cursor }
          const listed = yield* Effect.tryPromise({
            try: (signal) => client.listResources(params, { signal, timeout: toolTimeoutMs }),
            catch: (error) => error
          })
          if (listed.resources.some((resource) => resource.uri === uri)) return true
          cursor = listed.nextCursor
          if (cursor === undefined) break
        }
        return false
      }).pipe(
        Effect.catchAll((error) => Effect.logDebug(`MCP server ${name}: cannot list its resources: ${messageOf(error)}`).pipe(Effect.as(false)))
      )

    const readResource = (uri: string): Effect.Effect<McpResource, McpError> =>
      Effect.suspend(() => {
        const client = ready
        if (client === undefined) return Effect.fail(new McpError({ server: name, message: `MCP server "${name}" is not running (${state})` }))
        return Effect.tryPromise({
          try: (signal) => client.readResource({ uri }, { signal, timeout: toolTimeoutMs }),
          catch: (error) =>
            new McpError({
              server: name,
              message: tooLarge === undefined ? `MCP server "${name}" cannot read ${uri}: ${messageOf(error)}` : `${tooLarge.message}; reading ${uri} failed`,
              cause: tooLarge ?? error
            })
        }).pipe(Effect.map((result) => toResource(uri, result)))
      })

    const connection: Connection = {
      name,
      status: () => ({
        name,
        transport: kind,
        origin: server.origin,
        state,
        ...(message === undefined ? {} : { message }),
        tools: tools.map((tool) => tool.definition.name)
      }),
      tools: () => tools,
      instructions: () => (state === "ready" ? instructions : undefined),
      listsResource,
      readResource
    }

    if (server.problem !== undefined) {
      settle("failed", server.problem)
      return connection
    }

    const run = yield* FiberSet.runtime(yield* FiberSet.make())<never>()
    // Its stream was cut mid-message, so what it was saying is lost: the server is stopped
    // rather than trusted to go on, which also ends its pending calls at once.
    const stopTooLarge = (error: McpResponseTooLarge) => {
      if (tooLarge !== undefined) return
      tooLarge = error
      // While it starts, the failed start reports it.
      if (state === "ready") settle("failed", `${error.message}; it was stopped`)
      run(close)
    }

    const made = yield* makeTransport(config, options.sessionCwd, stderr, options.sandbox, options.environment, stopTooLarge)
    if (typeof made === "string") {
      settle("failed", made)
      return connection
    }
    const transport = made.transport
    profile = made.sandbox

    const client = new Client({ name: "custom-agent", version: options.clientVersion }, { capabilities: {} })

    /** Each step runs whatever the one before did: a failed goodbye must not leave a process behind. */
    const attempt = (step: string, promise: () => Promise<unknown>) =>
      Effect.tryPromise({ try: promise, catch: (error) => error }).pipe(
        Effect.timeout(STOP_STEP_WAIT),
        Effect.catchAll((error) => Effect.logDebug(`MCP server ${name}: ${step} failed: ${messageOf(error)}`))
      )
    const close = Effect.suspend(() => {
      if (closing) return Effect.void
      closing = true
      ready = undefined
      // A server stopped before it finished starting has no work to finish: end it at once
      // instead of waiting out the SDK's polite shutdown (stdin closed, then 2 s, then SIGTERM).
      const abandoned = state === "starting" && transport instanceof StdioTransport ? transport.childPid : undefined
      return Effect.all(
        [
          abandoned === undefined ? Effect.void : terminate(abandoned),
          transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined
            ? attempt("ending its HTTP session", () => transport.terminateSession())
            : Effect.void,
          attempt("closing the client", () => client.close()),
          // A stdio child is stopped by closing its transport: stdin closed, then SIGTERM, then SIGKILL.
          attempt("closing its transport", () => transport.close()),
          transport instanceof StdioTransport && transport.childPid !== undefined ? awaitExit(transport.childPid) : Effect.void
        ],
        { discard: true }
      )
    })
    yield* Effect.addFinalizer(() => close)

    client.onclose = () => exited("the server exited")
    client.onerror = (error) => {
      run(Effect.logDebug(`MCP server ${name}: ${error.message}`))
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (state === "starting") toolsChangedWhileStarting = true
      else relist()
    })

    const started = yield* Effect.tryPromise({ try: (signal) => client.connect(transport, { signal }), catch: (error) => error }).pipe(
      Effect.zipRight(listTools(client)),
      Effect.timeoutFail({ duration: Duration.millis(startupTimeoutMs), onTimeout: () => new StartTimedOut() }),
      Effect.either
    )
    if (started._tag === "Left") {
      const error = started.left
      const reason =
        tooLarge !== undefined
          ? tooLarge.message
          : error instanceof StartTimedOut
            ? `did not start within ${seconds(startupTimeoutMs)}`
            : startFailure(config, error)
      yield* close
      settle("failed", withStderr(reason, stderr))
      return connection
    }

    ready = client
    tools = toTools(started.right)
    instructions = client.getInstructions()
    settle("ready", `${tools.length} tool${tools.length === 1 ? "" : "s"}`)
    if (toolsChangedWhileStarting) relist()
    return connection
  })
