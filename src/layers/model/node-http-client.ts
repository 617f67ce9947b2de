import * as http from "node:http"
import * as https from "node:https"
import type * as net from "node:net"

/**
 * POST requests on `node:http` and `node:https` for the Anthropic adapter, which reads each
 * answer itself: the status and headers, then the body as it arrives (an async iterable of
 * chunks; a connection that closes before the body ended makes it fail, so a cut stream is
 * never mistaken for a complete one). Not a general client: no redirects are followed and
 * nothing is decompressed (it asks for no compression); proxy settings in the environment
 * are not read (as with Node 20's `fetch`). Keep-alive sockets are reused across requests
 * until idle for `idleMs` (default 4 s, undici's) or `close`.
 */
export interface HttpPost {
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /**
   * Aborting before the answer's headers came rejects the request and closes the connection;
   * after that, `destroy()` the message to stop reading it (that closes the connection too).
   */
  readonly signal: AbortSignal
  /** The request fails when the status and headers have not arrived within this time. */
  readonly headersTimeoutMs: number
}

export interface NodeHttpClient {
  /** Resolves once the answer's status and headers arrived; its body is then read from the message. */
  readonly post: (request: HttpPost) => Promise<http.IncomingMessage>
  /** Closes every socket, those of requests still running too (it is for the gateway's end). */
  readonly close: () => void
}

/** How long an idle kept-alive connection is kept: undici's default, under common server idle timeouts. */
const DEFAULT_IDLE_MS = 4_000

/**
 * Keep-alive with a limit on idle time: a free socket times out after `idleMs` and the agent
 * closes it. Node 20's agent otherwise keeps an idle socket until the server closes it (it
 * applies a server's `Keep-Alive: timeout` hint only under an agent-wide timeout, which would
 * also time active requests), and a connection a NAT or proxy dropped silently would then
 * swallow the next request. On a timeout the agent closes only free sockets, so the pauses of
 * an answer being read are not limited by it.
 */
const idleLimited = <A extends http.Agent>(agent: A, idleMs: number): A => {
  agent.on("free", (socket: net.Socket) => socket.setTimeout(idleMs))
  return agent
}

export const makeNodeHttpClient = (options: { readonly idleMs?: number } = {}): NodeHttpClient => {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS
  const agents = {
    http: idleLimited(new http.Agent({ keepAlive: true }), idleMs),
    https: idleLimited(new https.Agent({ keepAlive: true }), idleMs)
  }

  const post = (request: HttpPost): Promise<http.IncomingMessage> =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const { url, signal } = request
      if (url.protocol !== "http:" && url.protocol !== "https:") return reject(new TypeError(`unsupported protocol ${url.protocol}`))
      if (signal.aborted) return reject(signal.reason)
      const secure = url.protocol === "https:"
      const outgoing = (secure ? https.request : http.request)(
        url,
        {
          method: "POST",
          headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
          agent: secure ? agents.https : agents.http
        },
        (message) => {
          settle()
          resolve(message)
        }
      )
      // Not http.request's own signal: it would also error a message already handed over,
      // with no one left to hear it once the reader has stopped.
      const abort = () => outgoing.destroy(signal.reason)
      const timer = setTimeout(
        () => outgoing.destroy(new Error(`no answer within ${request.headersTimeoutMs / 1000} s`)),
        request.headersTimeoutMs
      )
      const settle = () => {
        clearTimeout(timer)
        signal.removeEventListener("abort", abort)
      }
      signal.addEventListener("abort", abort, { once: true })
      outgoing.on("error", (error) => {
        settle()
        reject(error)
      })
      outgoing.end(request.body)
    })

  return {
    post,
    close: () => {
      agents.http.destroy()
      agents.https.destroy()
    }
  }
}

/** The whole body as text (an error answer's, which is short). */
export const readText = async (message: http.IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of message) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
  return Buffer.concat(chunks).toString("utf8")
}
