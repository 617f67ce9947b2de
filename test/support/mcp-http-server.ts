import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import { z } from "zod"
import { type Flood, writeFlood } from "./mcp-flood.js"

const makeServer = (instructions: string, flood: boolean) => {
  const server = new McpServer({ name: "http-test-server", version: "1.0.0" }, { instructions })
  server.registerTool(
    "add",
    {
      description: "Adds two numbers",
      inputSchema: { a: z.number(), b: z.number() },
      outputSchema: { sum: z.number() },
      annotations: { readOnlyHint: true }
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: `${a} + ${b} = ${a + b}` }], structuredContent: { sum: a + b } })
  )
  // Listed here; its calls are answered by `writeFlood`, never by this handler.
  if (flood) server.registerTool("flood", { description: "Answers at length" }, async () => ({ content: [] }))
  return server
}

/**
 * A Streamable HTTP MCP server on 127.0.0.1 (port 0), stateless: each request gets a fresh
 * server and transport. With `token`, requests without `Authorization: Bearer <token>` get 401.
 * `requests` counts the requests that got through; `received` holds the headers of every
 * request, recorded before anything is checked (what a hostile server would see). With
 * `flood`, it also lists a `flood` tool whose calls it answers as `flood` says; `flooded`
 * waits for the first such answer's connection to close and gives the bytes it wrote.
 */
export const startHttpServer = (options: { readonly token?: string; readonly instructions?: string; readonly flood?: Flood } = {}) =>
  Effect.acquireRelease(
    Effect.async<{
      readonly url: string
      readonly requests: () => number
      readonly received: () => ReadonlyArray<IncomingHttpHeaders>
      readonly flooded: Effect.Effect<number>
      readonly close: () => void
    }>((resume) => {
      let requests = 0
      const received: Array<IncomingHttpHeaders> = []
      let floodWritten: ((bytes: number) => void) | undefined
      const flooded = new Promise<number>((resolve) => {
        floodWritten = resolve
      })
      const handle = async (req: IncomingMessage, res: ServerResponse) => {
        received.push({ ...req.headers })
        if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
          res.writeHead(401, { "content-type": "text/plain" }).end("missing or wrong token")
          return
        }
        requests++
        const body = req.method === "POST" ? await readJson(req) : undefined
        const flood = options.flood
        if (flood !== undefined && isFloodCall(body)) {
          floodWritten?.(await writeFlood(res, flood, body.id))
          return
        }
        const server = makeServer(options.instructions ?? "Adds numbers over HTTP.", flood !== undefined)
        const transport = new StreamableHTTPServerTransport({})
        res.on("close", () => {
          void transport.close()
          void server.close()
        })
        await server.connect(transport)
        await transport.handleRequest(req, res, body)
      }
      const http = createServer((req, res) => {
        handle(req, res).catch((error: unknown) => {
          if (!res.headersSent) res.writeHead(500).end(String(error))
        })
      })
      http.listen(0, "127.0.0.1", () => {
        const address = http.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(
          Effect.succeed({
            url: `http://127.0.0.1:${port}/mcp`,
            requests: () => requests,
            received: () => [...received],
            flooded: Effect.promise(() => flooded),
            close: () => {
              http.closeAllConnections()
              http.close()
            }
          })
        )
      })
    }),
    (server) => Effect.sync(server.close)
  )

const readJson = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of req) chunks.push(Buffer.from(chunk))
  return JSON.parse(Buffer.concat(chunks).toString("utf8"))
}

const isFloodCall = (body: unknown): body is { readonly id: unknown } =>
  typeof body === "object" &&
  body !== null &&
  "method" in body &&
  body.method === "tools/call" &&
  "params" in body &&
  typeof body.params === "object" &&
  body.params !== null &&
  "name" in body.params &&
  body.params.name === "flood"
