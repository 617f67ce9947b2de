/**
 * A small stdio MCP server for the hub's tests, compiled and run by node (testServer in mcp-fixtures.ts). Its tools:
 * `echo` (read-only), `trace` (with MCP_TEST_TRACE=1: answers the call's `_meta.traceparent`), `crash` (the process exits while answering), `wait` (answers only when
 * cancelled), `grow` (adds a tool, so the server announces a changed tool list).
 * MCP_TEST_PID_FILE gets its pid; MCP_TEST_EVENTS_FILE gets a line per notable moment. With
 * MCP_TEST_GATE_FILE it answers nothing (not even `initialize`) until that file exists: a
 * server as slow to start as a test needs.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { appendFileSync, existsSync } from "node:fs"
import { z } from "zod"

const record = (variable: string, line: string) => {
  const file = process.env[variable]
  if (file !== undefined && file !== "") appendFileSync(file, `${line}\n`)
}

record("MCP_TEST_PID_FILE", String(process.pid))

const server = new McpServer(
  { name: "test-server", version: "1.0.0" },
  { instructions: "Use echo to repeat things back." }
)

server.registerTool(
  "echo",
  { description: "Repeats the text", inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
  async ({ text }) => ({ content: [{ type: "text", text }] })
)

// Only when asked for, so the other tests' tool lists stay as they are.
if (process.env["MCP_TEST_TRACE"] === "1") {
  server.registerTool("trace", { description: "Answers the traceparent the call carried in _meta" }, async (extra) => ({
    content: [{ type: "text", text: `traceparent=${String(extra._meta?.["traceparent"] ?? "none")}` }]
  }))
}

server.registerTool("crash", { description: "Exits the process while answering" }, async () => {
  process.stderr.write("about to crash: simulated failure\n")
  process.exit(3)
})

server.registerTool("wait", { description: "Waits until the call is cancelled" }, async (extra) => {
  record("MCP_TEST_EVENTS_FILE", "wait started")
  await new Promise<void>((resolve) => {
    extra.signal.addEventListener("abort", () => {
      record("MCP_TEST_EVENTS_FILE", "wait cancelled")
      resolve()
    })
  })
  return { content: [{ type: "text", text: "cancelled" }] }
})

server.registerTool("grow", { description: "Adds a tool named `name`", inputSchema: { name: z.string() } }, async ({ name }) => {
  server.registerTool(name, { description: `The added tool ${name}` }, async () => ({ content: [{ type: "text", text: `I am ${name}` }] }))
  return { content: [{ type: "text", text: `added ${name}` }] }
})

process.stderr.write("test server starting\n")
const gate = process.env["MCP_TEST_GATE_FILE"]
if (gate !== undefined && gate !== "") {
  // The client's requests wait in the pipe meanwhile; the test opens the gate by creating the file.
  while (!existsSync(gate)) await new Promise((resolve) => setTimeout(resolve, 20))
}
await server.connect(new StdioServerTransport())
// As the MCP spec asks of stdio servers: stdin closed means the client is done.
process.stdin.on("end", () => process.exit(0))
