/**
 * A stdio MCP server that tries what a sandbox must stop, for the sandbox's tests (run with
 * `node --import tsx`): `write` writes a file anywhere, `connect` opens a TCP connection to
 * the host's 127.0.0.1. Each answers what happened, as the server saw it.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { writeFileSync } from "node:fs"
import { connect } from "node:net"
import { z } from "zod"

const failure = (error: unknown) => ({
  content: [{ type: "text" as const, text: error instanceof Error ? error.message : String(error) }],
  isError: true
})

const server = new McpServer({ name: "sandbox-probe", version: "1.0.0" })

server.registerTool("write", { description: "Writes text to a file", inputSchema: { path: z.string(), text: z.string() } }, async ({ path, text }) => {
  try {
    writeFileSync(path, text)
    return { content: [{ type: "text", text: `wrote ${path}` }] }
  } catch (error) {
    return failure(error)
  }
})

server.registerTool("connect", { description: "Reads what a TCP listener on 127.0.0.1 says", inputSchema: { port: z.number() } }, async ({ port }) => {
  try {
    const text = await new Promise<string>((resolve, reject) => {
      let received = ""
      const socket = connect(port, "127.0.0.1")
      socket.on("data", (chunk) => (received += chunk.toString("utf8")))
      socket.on("end", () => resolve(received))
      socket.on("error", reject)
    })
    return { content: [{ type: "text", text }] }
  } catch (error) {
    return failure(error)
  }
})

await server.connect(new StdioServerTransport())
process.stdin.on("end", () => process.exit(0))
