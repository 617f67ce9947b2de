import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { McpError, McpHub } from "../../services/McpHub.js"

/** An McpHub with no servers: no tools, no instructions, no notices, no resources to attach. */
export const noMcp: Layer.Layer<McpHub> = Layer.succeed(
  McpHub,
  McpHub.of({
    source: { name: "mcp", tools: () => Effect.succeed([]) },
    awaitServers: () => Effect.void,
    configureSession: () => Effect.void,
    status: () => Effect.succeed([]),
    drainNotices: () => Effect.succeed([]),
    instructions: () => Effect.succeed([]),
    readResource: () => new McpError({ server: "", message: "no MCP servers here to read attached resources from" }),
    release: () => Effect.void
  })
)
