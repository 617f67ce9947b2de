import * as http from "node:http"
import * as https from "node:https"
import type * as net from "node:net"

/**
 * A `fetch` on `node:http` and `node:https`, for the Anthropic SDK's `fetch` option: the SDK
 * still builds every request, reads every answer and maps every error; only the transport
 * under it is Node's own HTTP client instead of undici. In the CLI that measured about 30 ms
 * less over a 100-step chain (about 5% of its wall) and 4 MiB less peak RSS, with no
 * WebAssembly parser in memory (docs/performance.md).
 *
 * It does what the SDK asks of a fetch: a URL (or a Request without a body), a method,
 * headers, a string or byte body, an abort signal, and an answer whose body streams as it
 * arrives. It is not a general fetch: redirects are not followed (a 3xx reaches the SDK as an
 * API error) and nothing is decompressed (it asks for no compression). Keep-alive sockets
 * are reused across requests until idle for `idleMs` (default 4 s, undici's) or `close`.
 */
export interface NodeHttpFetch {
  readonly fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>
  /** Closes the idle keep-alive sockets; requests still running are not touched. */
  readonly close: () => void
}

/** Answers with these statuses have no body (a Response refuses one). */
const nullBodyStatuses = new Set([101, 103, 204, 205, 304])

const encodeBody = (body: RequestInit["body"]): Uint8Array | string | undefined | TypeError => {
  if (body === undefined || body === null || typeof body === "string") return body ?? undefined
  if (body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
  if (body instanceof URLSearchParams) return body.toString()
  return new TypeError("this transport sends string and byte bodies only (a stream, Blob or FormData body was given)")
}

const headersOf = (message: http.IncomingMessage): Headers => {
  const headers = new Headers()
  for (const [name, value] of Object.entries(message.headers)) {
    if (value === undefined) continue
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one)
  }
  return headers
}

/**
 * The answer's body as a web stream, read as it arrives, with backpressure; cancelling it
 * closes the connection. A connection that closes before the body ended is an error, so a
 * cut stream is never mistaken for a complete one; after an abort the error is the signal's
 * reason, as with fetch (the SDK tells an abort from a failure by it).
 */
const bodyOf = (message: http.IncomingMessage, signal: AbortSignal | null | undefined): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      let ended = false
      const fail = (error: unknown) => controller.error(signal?.aborted ? signal.reason : error)
      message.on("data", (chunk: Buffer) => {
        controller.enqueue(chunk)
        if ((controller.desiredSize ?? 0) <= 0) message.pause()
      })
      message.on("end", () => {
        ended = true
        controller.close()
      })
      message.on("error", fail)
      message.on("close", () => {
        if (!ended && !message.errored) fail(new Error("the connection closed before the answer ended"))
      })
    },
    pull() {
      message.resume()
    },
    cancel() {
      message.destroy()
    }
  })

/** How long an idle kept-alive connection is kept: undici's default, under common server idle timeouts. */
export const DEFAULT_IDLE_MS = 4_000

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

export const makeNodeHttpFetch = (options: { readonly idleMs?: number } = {}): NodeHttpFetch => {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS
  const agents = {
    http: idleLimited(new http.Agent({ keepAlive: true }), idleMs),
    https: idleLimited(new https.Agent({ keepAlive: true }), idleMs)
  }

  const fetch = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const request = input instanceof Request ? input : undefined
      if (request?.body) return reject(new TypeError("this transport does not send a Request's body; pass the body in init"))
      const url = new URL(request?.url ?? input.toString())
      if (url.protocol !== "http:" && url.protocol !== "https:") return reject(new TypeError(`unsupported protocol ${url.protocol}`))
      const body = encodeBody(init.body)
      if (body instanceof TypeError) return reject(body)
      const signal = init.signal ?? request?.signal
      if (signal?.aborted) return reject(signal.reason)
      const headers: Record<string, string> = {}
      new Headers(init.headers ?? request?.headers).forEach((value, name) => {
        headers[name] = value
      })
      const secure = url.protocol === "https:"
      const options: http.RequestOptions = {
        method: init.method ?? request?.method ?? "GET",
        headers,
        agent: secure ? agents.https : agents.http,
        ...(signal ? { signal } : {})
      }
      const outgoing = (secure ? https.request : http.request)(url, options, (message) => {
        const status = message.statusCode ?? 0
        const bodyless = nullBodyStatuses.has(status)
        if (bodyless) message.resume()
        resolve(
          new Response(bodyless ? null : bodyOf(message, signal), {
            status,
            statusText: message.statusMessage ?? "",
            headers: headersOf(message)
          })
        )
      })
      outgoing.on("error", reject)
      outgoing.end(body)
    })

  return {
    fetch,
    close: () => {
      agents.http.destroy()
      agents.https.destroy()
    }
  }
}
