import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js"
import { Effect } from "effect"
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import { z } from "zod"

const makeServer = (instructions: string) => {
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
  return server
}

/**
 * A Streamable HTTP MCP server on 127.0.0.1 (port 0), stateless: each request gets a fresh
 * server and transport. With `token`, requests without `Authorization: Bearer <token>` get 401.
 * `requests` counts the requests that got through; `received` holds the headers of every
 * request, recorded before anything is checked (what a hostile server would see).
 */
export const startHttpServer = (options: { readonly token?: string; readonly instructions?: string } = {}) =>
  Effect.acquireRelease(
    Effect.async<{
      readonly url: string
      readonly requests: () => number
      readonly received: () => ReadonlyArray<IncomingHttpHeaders>
      readonly close: () => void
    }>((resume) => {
      let requests = 0
      const received: Array<IncomingHttpHeaders> = []
      const handle = async (req: IncomingMessage, res: ServerResponse) => {
        received.push({ ...req.headers })
        if (options.token !== undefined && req.headers.authorization !== `Bearer ${options.token}`) {
          res.writeHead(401, { "content-type": "text/plain" }).end("missing or wrong token")
          return
        }
        requests++
        const server = makeServer(options.instructions ?? "Adds numbers over HTTP.")
        const transport = new StreamableHTTPServerTransport({})
        res.on("close", () => {
          void transport.close()
          void server.close()
        })
        await server.connect(transport)
        await transport.handleRequest(req, res)
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
