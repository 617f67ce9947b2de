import type { Tool as ServerTool } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type { SandboxProfile } from "../../domain/sandbox.js"
import type { ToolResult } from "../../domain/tools.js"
import { type Tool, ToolInputError } from "../../services/ToolRouter.js"

/** Runs a tools/call on the server: never fails, interruption cancels the call on the server. */
/** Calls a server's tool; `traceparent` (the call's span, when tracing is on) goes in the request's `_meta`. */
export type CallServerTool = (tool: string, args: Readonly<Record<string, unknown>>, traceparent?: string) => Effect.Effect<ToolResult>

const SUMMARY_ARGS_CHARS = 120

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/**
 * A server's tool as one of ours. Input is checked only shallowly (an object, required
 * properties present): the server validates it fully and answers errors the model can read.
 * Risk is "read" when the server marks the tool read-only, "network" otherwise; the
 * PermissionEngine decides from there, and rules can name the tool.
 */
export const makeServerTool = (
  server: string,
  modelName: string,
  tool: ServerTool,
  call: CallServerTool,
  /** Where the server runs, for a stdio server: recorded with each call. */
  sandbox?: SandboxProfile
): Tool => {
  const required = (tool.inputSchema.required ?? []).filter((key) => typeof key === "string")
  const description = tool.description ?? tool.title ?? tool.annotations?.title ?? tool.name
  return {
    definition: { name: modelName, description: `[MCP server ${server}] ${description}`, inputSchema: tool.inputSchema },
    prepare: (input, ctx) => {
      // A model that sends nothing for a tool without parameters means "no arguments".
      const args = input === undefined || input === null ? {} : input
      if (!isRecord(args)) return Effect.fail(new ToolInputError({ message: "input: must be a JSON object" }))
      const missing = required.filter((key) => args[key] === undefined)
      if (missing.length > 0) {
        return Effect.fail(new ToolInputError({ message: missing.map((key) => `${key}: is missing`).join("; ") }))
      }
      const json = JSON.stringify(args)
      return Effect.succeed({
        // A server's read-only hint is its own claim, and its reach is not the workspace's:
        // every MCP call is judged as network, so by default it asks.
        risk: "network",
        summary: `mcp ${server}: ${tool.name} ${clip(json, SUMMARY_ARGS_CHARS)}`,
        // The whole arguments: a question shows everything it decides on.
        ...(json.length > SUMMARY_ARGS_CHARS ? { detail: JSON.stringify(args, null, 2) } : {}),
        paths: [],
        outsideWorkspace: false,
        ...(sandbox === undefined ? {} : { sandbox }),
        execute: call(tool.name, args, ctx.traceparent)
      })
    }
  }
}
