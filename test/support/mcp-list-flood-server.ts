/**
 * A stdio MCP server that floods `notifications/tools/list_changed`, run with `node --import tsx`.
 * Its `flood` tool sends `count` notifications; the first re-list they cause is held until all
 * were sent, so every later notice arrives while a re-list is in flight. Each list answers the
 * tools plus one named for how many lists it has served (`v3` for the third); `lists` answers
 * that count.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js"

const server = new Server({ name: "list-flood", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } })

let lists = 0
let markFlooded: () => void = () => {}
const flooded = new Promise<void>((resolve) => (markFlooded = resolve))
let markHeld: () => void = () => {}
const held = new Promise<void>((resolve) => (markHeld = resolve))

const tool = (name: string) => ({ name, inputSchema: { type: "object" as const, properties: { count: { type: "number" } } } })

server.setRequestHandler(ListToolsRequestSchema, async () => {
  lists += 1
  const served = lists
  if (served === 2) {
    markHeld()
    await flooded
  }
  return { tools: [tool("flood"), tool("lists"), tool(`v${served}`)] }
})

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (request.params.name === "lists") return { content: [{ type: "text", text: String(lists) }] }
  if (request.params.name !== "flood") return { content: [{ type: "text", text: "no such tool" }], isError: true }
  const count = Number(request.params.arguments?.["count"] ?? 0)
  for (let i = 0; i < count; i++) await server.sendToolListChanged()
  markFlooded()
  await held
  return { content: [{ type: "text", text: `sent ${count}` }] }
})

await server.connect(new StdioServerTransport())
process.stdin.on("end", () => process.exit(0))
