import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ToolScope, ToolSource } from "./ToolRouter.js"

/** Per-server limits, in milliseconds: how long a tool call may take, how long start-up may take. */
const McpServerTimeouts = {
  timeoutMs: Schema.optional(Schema.Number),
  startupTimeoutMs: Schema.optional(Schema.Number)
}

/** An MCP server as configured: stdio (`command`/`args`/`env`) or Streamable HTTP (`url`/`headers`). */
export const McpServerConfig = Schema.Union(
  Schema.Struct({
    name: Schema.String,
    command: Schema.String,
    args: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
    env: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
    cwd: Schema.optional(Schema.String),
    ...McpServerTimeouts
  }),
  Schema.Struct({
    name: Schema.String,
    url: Schema.String,
    headers: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.String }), { default: () => ({}) }),
    ...McpServerTimeouts
  })
)
export type McpServerConfig = typeof McpServerConfig.Type

/** `skipped`: configured but never started (a project's server before trust, or one with a user's server's name). */
export type McpServerState = "configured" | "starting" | "ready" | "failed" | "exited" | "skipped"

/** Where a server was configured: the user's `mcp.json`, the project's, or a client of the session (the user's editor). */
export type McpServerOrigin = "user" | "project" | "session"

export interface McpServerStatus {
  readonly name: string
  readonly transport: "stdio" | "http"
  readonly origin?: McpServerOrigin
  readonly state: McpServerState
  readonly message?: string
  /** Tool names as the model sees them (`mcp__<server>__<tool>`). */
  readonly tools: ReadonlyArray<string>
}

/**
 * Something about a server a session should record: it started, failed, died, changed its
 * tools, was left out, or was still starting when the start-up wait ended (`slow`).
 */
export interface McpNotice {
  readonly server: string
  readonly state: "ready" | "failed" | "exited" | "tools_changed" | "skipped" | "slow"
  readonly message?: string
}

export class McpError extends Schema.TaggedError<McpError>()("McpError", {
  server: Schema.String,
  message: Schema.String,
  /** The failure underneath (the SDK's or the transport's error), when there was one. */
  cause: Schema.optional(Schema.Defect)
}) {}

export interface McpResource {
  readonly uri: string
  readonly mimeType?: string
  readonly text: string
}

/**
 * The MCP servers of each session. Servers start when a session first needs them and stop
 * when it is released; a server that fails or dies leaves the session usable and is noticed.
 */
export interface McpHubShape {
  /** Tools of the session's servers, as `mcp__<server>__<tool>`, behind the same PermissionEngine. */
  readonly source: ToolSource
  /**
   * Waits for the session's servers to finish starting (starting them if need be), at most
   * the hub's start-up wait, counted from their start: the engine calls it before each model
   * step, so the first one is offered the tools of servers that start in time. Returns at once
   * when the session has no servers or the wait is over; a server still starting then is
   * noticed as `slow`, and its tools join a later step once it is ready.
   */
  readonly awaitServers: (scope: ToolScope) => Effect.Effect<void>
  /** Adds servers for one session (e.g. from ACP `session/new`) before it starts them. */
  readonly configureSession: (sessionId: string, cwd: string, extra: ReadonlyArray<McpServerConfig>) => Effect.Effect<void>
  readonly status: (sessionId: string) => Effect.Effect<ReadonlyArray<McpServerStatus>>
  /** Notices since the last call, for the session's event log. */
  readonly drainNotices: (sessionId: string) => Effect.Effect<ReadonlyArray<McpNotice>>
  /** The servers' `instructions`, for the context. */
  readonly instructions: (sessionId: string) => Effect.Effect<ReadonlyArray<{ readonly server: string; readonly text: string }>>
  /**
   * Reads a resource by URI (`<server>` chosen by who lists it) to attach to a prompt. `cwd`,
   * the session's workspace, names its project servers when nothing configured it yet (a
   * prompt's attachments are read before its first request lists tools).
   */
  readonly readResource: (sessionId: string, uri: string, cwd?: string) => Effect.Effect<McpResource, McpError>
  /**
   * Stops the session's servers and forgets it; servers a client gave it (`configureSession`)
   * are remembered, so its next use starts them again. The engine calls it when it evicts
   * an idle session.
   */
  readonly release: (sessionId: string) => Effect.Effect<void>
}

export class McpHub extends Context.Tag("custom-agent/McpHub")<McpHub, McpHubShape>() {}
