import type { McpServer } from "@agentclientprotocol/sdk/unstable"
import * as Either from "effect/Either"
import type { McpServerConfig } from "../services/McpHub.js"

const record = (pairs: ReadonlyArray<{ readonly name: string; readonly value: string }>) =>
  Object.fromEntries(pairs.map((pair) => [pair.name, pair.value]))

/** The client's MCP servers as the hub configures them: stdio and Streamable HTTP (SSE and MCP over ACP are not offered). */
export const mcpServerConfigs = (servers: ReadonlyArray<McpServer>): Either.Either<ReadonlyArray<McpServerConfig>, string> => {
  const configs: Array<McpServerConfig> = []
  for (const server of servers) {
    if ("type" in server) {
      if (server.type === "sse") return Either.left(`MCP server ${server.name}: SSE transport is not supported (see mcpCapabilities)`)
      // MCP over ACP is an unstable transport this agent does not advertise.
      if (server.type === "acp") return Either.left(`MCP server ${server.name}: the ACP transport is not supported (see mcpCapabilities)`)
      configs.push({ name: server.name, url: server.url, headers: record(server.headers) })
    } else {
      configs.push({ name: server.name, command: server.command, args: server.args, env: record(server.env) })
    }
  }
  return Either.right(configs)
}
