import { NodeHttpServer } from "@effect/platform-node"
import * as Layer from "effect/Layer"
import { createServer, type Server } from "node:http"
import { type ServerOptions, serverLayer } from "./server.js"

/**
 * How long the server waits on a client. None of them bounds a response: a subscription
 * streams for as long as it is read (keep-alive frames every 15 s), a long request (a
 * compaction) is answered when done.
 */
export interface HttpTimeouts {
  /** To receive a whole request, headers and body (Node's `requestTimeout`). */
  readonly requestMs: number
  /** To receive a request's headers (Node's `headersTimeout`). */
  readonly headersMs: number
  /** An idle keep-alive connection is closed after this (Node's `keepAliveTimeout`). */
  readonly keepAliveMs: number
  /** How often Node looks for requests past their time (`connectionsCheckingInterval`). */
  readonly checkEveryMs: number
}

/** A 4 MiB body over a slow link fits in the request bound; a client that sends nothing is let go sooner. */
export const defaultTimeouts: HttpTimeouts = { requestMs: 60_000, headersMs: 20_000, keepAliveMs: 5_000, checkEveryMs: 5_000 }

/**
 * A Node HTTP server that answers 503 to a request no app takes: the app's handler is added
 * once the API is ready (`HttpServer.serve`) and removed at shutdown, and a request that came
 * in between would otherwise wait for Node's request timeout (minutes) with no answer.
 */
export const makeNodeServer = (timeouts: HttpTimeouts = defaultTimeouts) => (): Server => {
  const server = createServer({
    requestTimeout: timeouts.requestMs,
    headersTimeout: timeouts.headersMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: timeouts.checkEveryMs
  })
  server.on("request", (_request, response) => {
    // This listener is first; any other is the app's.
    if (server.listenerCount("request") > 1) return
    response.writeHead(503, { "content-type": "text/plain; charset=utf-8", "retry-after": "1", connection: "close" })
    response.end("custom-agent is starting or stopping: try again in a moment\n")
  })
  return server
}

export interface ListenOptions extends ServerOptions {
  readonly port: number
  /** The address to bind (an IPv6 one without brackets). */
  readonly host: string
  readonly timeouts?: HttpTimeouts
}

/**
 * The API on a real port. It listens only once what it needs is built: provide the host to
 * this layer (`Layer.provide(host)`), and the port opens after the host is ready, so a
 * connection during start-up is refused rather than accepted and left unanswered. Its output,
 * the HttpServer, gives the bound address.
 */
export const listeningLayer = (options: ListenOptions) =>
  serverLayer(options).pipe(Layer.provideMerge(NodeHttpServer.layer(makeNodeServer(options.timeouts), { port: options.port, host: options.host })))
