import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ToolDefinition } from "../domain/model.js"
import type { SandboxProfile } from "../domain/sandbox.js"
import type { ShellAnalysis } from "../domain/shell.js"
import type { RiskClass, ToolCall, ToolResult } from "../domain/tools.js"

export class FileAccessError extends Schema.TaggedError<FileAccessError>()("FileAccessError", {
  path: Schema.String,
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * How file tools read and write text: the local disk by default, an editor's buffers when an
 * ACP client offers them. Paths are absolute.
 */
export interface FileAccess {
  /**
   * `judged`: the real location the call was judged at (links followed); the access fails
   * unless the file it opens is that one, so a link swapped in meanwhile cannot redirect it.
   */
  readonly readText: (path: string, judged?: string) => Effect.Effect<string, FileAccessError>
  readonly writeText: (path: string, content: string, judged?: string) => Effect.Effect<void, FileAccessError>
  /**
   * The access one session's tools use, when files are addressed per session (an ACP client
   * serves its buffers by session id). Absent: every session uses this access as it is.
   */
  readonly forSession?: (sessionId: string) => FileAccess
}

/** The FileAccess file tools use; a layer picks local disk or an editor's buffers. */
export class Files extends Context.Tag("custom-agent/Files")<Files, FileAccess>() {}

/** What a tool knows of the call it serves. */
export interface ToolContext {
  readonly sessionId: string
  readonly toolCallId: string
  /** Absolute, symlinks resolved. Every path a tool touches is judged against it. */
  readonly workspaceRoot: string
  readonly files: FileAccess
  /** The W3C `traceparent` of the call's span when tracing is on: processes the call starts get it as TRACEPARENT. */
  readonly traceparent?: string
}

/**
 * A validated call, ready for the PermissionEngine: the facts rules match on, and the
 * effect to run once allowed. `execute` never fails (errors are `isError` results) and is
 * interruptible: interrupting it stops the work (a shell's process group is killed).
 */
export interface PreparedCall {
  readonly risk: RiskClass
  /** One line for a person: `shell: npm test`, `edit src/a.ts`. */
  readonly summary: string
  /** What to show before approving, e.g. the diff an edit would make. */
  readonly detail?: string
  /** Absolute paths the call touches, for path rules and the workspace boundary. */
  readonly paths: ReadonlyArray<string>
  /** True when any path resolves outside the workspace root (`..`, absolute, symlinks). */
  readonly outsideWorkspace: boolean
  /** The command line, for shell prefix rules. */
  readonly command?: string
  /** The command line parsed by a bash grammar: what shell rules and remembered answers match on. */
  readonly shell?: ShellAnalysis
  /** Where the call runs (shell commands, stdio MCP servers): recorded in `tool.started`. */
  readonly sandbox?: SandboxProfile
  /**
   * Why a read-class call that is not a read is harmless (a proposal that waits for review):
   * the reason recorded when it is allowed by default, instead of the one about reads.
   */
  readonly harmlessBecause?: string
  /**
   * The call writes its output to `ToolOutput` (`./ToolOutput.ts`) while it runs (a shell
   * command): the engine provides it and records the output as it comes. Other calls run
   * without it, at no cost.
   */
  readonly liveOutput?: boolean
  readonly execute: Effect.Effect<ToolResult>
}

export class ToolInputError extends Schema.TaggedError<ToolInputError>()("ToolInputError", {
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

/** A tool from any source (local, MCP, skills): its definition for the model and how to prepare a call. */
export interface Tool {
  readonly definition: ToolDefinition
  /** Validates the input and works out the call's facts; invalid input goes back to the model. */
  readonly prepare: (input: unknown, ctx: ToolContext) => Effect.Effect<PreparedCall, ToolInputError>
}

export class ToolCallRejected extends Schema.TaggedError<ToolCallRejected>()("ToolCallRejected", {
  toolCallId: Schema.String,
  reason: Schema.Literal("unknown_tool", "invalid_input"),
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

/** Whose tools: tool sets can differ by session (its MCP servers) and by workspace (project config). */
export interface ToolScope {
  readonly sessionId: string
  readonly workspaceRoot: string
}

/** Resolves calls to registered tools (merged from every source under unique names). */
export interface ToolRouterShape {
  readonly definitions: (scope: ToolScope) => Effect.Effect<ReadonlyArray<ToolDefinition>>
  readonly prepare: (call: ToolCall, ctx: ToolContext) => Effect.Effect<PreparedCall, ToolCallRejected>
}

export class ToolRouter extends Context.Tag("custom-agent/ToolRouter")<ToolRouter, ToolRouterShape>() {}

/** A registry of tools (local tools, an MCP server's, skills'); the router merges them. */
export interface ToolSource {
  readonly name: string
  readonly tools: (scope: ToolScope) => Effect.Effect<ReadonlyArray<Tool>>
}
