import { afterEach, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import { type HttpPost, makeNodeHttpClient, readText } from "../../../src/layers/model/node-http-client.js"

interface Seen {
  readonly method: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** A local server: `handle` answers; every request it saw and every connection it accepted are counted. */
const serve = async (handle: (req: http.IncomingMessage, res: http.ServerResponse) => void) => {
  const seen: Array<Seen> = []
  let connections = 0
  let closedConnections = 0
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      seen.push({ method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
      handle(req, res)
    })
  })
  server.on("connection", (socket) => {
    connections++
    socket.on("close", () => closedConnections++)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("the test server has no port")
  const port = address.port
  servers.push(server)
  return { url: `http://127.0.0.1:${port}`, port, seen, connections: () => connections, closedConnections: () => closedConnections }
}

const servers: Array<http.Server> = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** A server whose answers start and never end. */
const answerWithoutEnd = () =>
  serve((_, res) => {
    res.writeHead(200)
    res.write("started")
  })

/** A POST of "{}" with no deadline worth speaking of; `overrides` set what a test is about. */
const postTo = (url: string, overrides: Partial<HttpPost> = {}): HttpPost => ({
  url: new URL(url),
  headers: {},
  body: "{}",
  signal: new AbortController().signal,
  headersTimeoutMs: 10_000,
  ...overrides
})

const text = (chunk: unknown) => (Buffer.isBuffer(chunk) ? chunk.toString("utf8") : String(chunk))

const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(done()).toBe(true)
}

describe("makeNodeHttpClient (the Anthropic adapter's transport)", () => {
  it("sends a POST with the headers and a string body with its byte length; answers with status, headers and body", async () => {
    const server = await serve((_, res) => {
      res.setHeader("set-cookie", ["a=1", "b=2"])
      res.writeHead(201, "Made", { "content-type": "application/json", "request-id": "req_1" })
      res.end('{"ok":true}')
    })
    const client = makeNodeHttpClient()
    const body = '{"model":"m","text":"é"}'
    const message = await client.post(
      postTo(`${server.url}/v1/messages?beta=true`, { headers: { "content-type": "application/json", "x-api-key": "k" }, body })
    )
    expect(message.statusCode).toBe(201)
    expect(message.statusMessage).toBe("Made")
    expect(message.headers["request-id"]).toBe("req_1")
    expect(message.headers["set-cookie"]).toEqual(["a=1", "b=2"])
    expect(await readText(message)).toBe('{"ok":true}')
    expect(server.seen).toEqual([expect.objectContaining({ method: "POST", body })])
    const headers = server.seen[0]?.headers
    expect(headers?.["content-type"]).toBe("application/json")
    expect(headers?.["x-api-key"]).toBe("k")
    // "é" is two bytes: the length must count bytes, not characters.
    expect(headers?.["content-length"]).toBe(String(Buffer.byteLength(body)))
    expect(headers?.["content-length"]).not.toBe(String(body.length))
    expect(headers?.["transfer-encoding"]).toBeUndefined()
    expect(headers?.["accept-encoding"]).toBeUndefined()
    client.close()
  })

  it("streams the body as it arrives, before the server has finished", async () => {
    let finish = () => {}
    const server = await serve((_, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write("event: one\n\n")
      finish = () => res.end("event: two\n\n")
    })
    const client = makeNodeHttpClient()
    const message = await client.post(postTo(server.url))
    const chunks = message[Symbol.asyncIterator]()
    // Read before the server is told to finish: a client that waited for the whole body would hang here.
    const first = await chunks.next()
    expect(text(first.value)).toBe("event: one\n\n")
    finish()
    const second = await chunks.next()
    expect(text(second.value)).toBe("event: two\n\n")
    expect((await chunks.next()).done).toBe(true)
    client.close()
  })

  it("reuses a kept-alive connection, and close() ends the idle ones", async () => {
    const server = await serve((_, res) => res.end("ok"))
    const client = makeNodeHttpClient()
    for (let i = 0; i < 3; i++) expect(await readText(await client.post(postTo(server.url)))).toBe("ok")
    expect(server.seen).toHaveLength(3)
    expect(server.connections()).toBe(1)
    expect(server.closedConnections()).toBe(0)
    client.close()
    await until(() => server.closedConnections() === 1)
  })

  it("closes a kept-alive connection idle for longer than idleMs, and opens a new one after", async () => {
    const server = await serve((_, res) => res.end("ok"))
    const client = makeNodeHttpClient({ idleMs: 100 })
    expect(await readText(await client.post(postTo(server.url)))).toBe("ok")
    await until(() => server.closedConnections() === 1)
    expect(await readText(await client.post(postTo(server.url)))).toBe("ok")
    expect(server.connections()).toBe(2)
    client.close()
  })

  it("a reused connection's answer may pause longer than idleMs", async () => {
    const server = await serve((req, res) => {
      res.writeHead(200)
      res.write("first ")
      if (req.url === "/slow") setTimeout(() => res.end("and last"), 300)
      else res.end("quick")
    })
    const client = makeNodeHttpClient({ idleMs: 100 })
    expect(await readText(await client.post(postTo(server.url)))).toBe("first quick")
    expect(await readText(await client.post(postTo(`${server.url}/slow`)))).toBe("first and last")
    expect(server.connections()).toBe(1)
    client.close()
  })

  it("a body cut off by the server makes reading it fail, not a short answer", async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write("event: partial\n\n")
      setTimeout(() => req.socket.destroy(), 20)
    })
    const client = makeNodeHttpClient()
    const message = await client.post(postTo(server.url))
    await expect(readText(message)).rejects.toMatchObject({ code: "ECONNRESET" })
    client.close()
  })

  it("aborting before the headers came rejects with the signal's reason and closes the connection", async () => {
    const server = await serve(() => {})
    const client = makeNodeHttpClient()
    const early = new AbortController()
    early.abort()
    await expect(client.post(postTo(server.url, { signal: early.signal }))).rejects.toBe(early.signal.reason)

    const waiting = new AbortController()
    const reason = new Error("stopped while waiting")
    const posted = client.post(postTo(server.url, { signal: waiting.signal }))
    await until(() => server.seen.length === 1)
    waiting.abort(reason)
    await expect(posted).rejects.toBe(reason)
    await until(() => server.closedConnections() === 1)
    // Only the second request reached the server: the aborted one never connected.
    expect(server.connections()).toBe(1)
    client.close()
  })

  it("after the headers, aborting leaves the message alone, and destroying it closes the connection without an error", async () => {
    const server = await answerWithoutEnd()
    const client = makeNodeHttpClient()
    const controller = new AbortController()
    const message = await client.post(postTo(server.url, { signal: controller.signal }))
    const errors: Array<unknown> = []
    message.on("error", (error) => errors.push(error))
    const chunks = message[Symbol.asyncIterator]()
    expect(text((await chunks.next()).value)).toBe("started")
    controller.abort()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(message.destroyed).toBe(false)
    message.destroy()
    await until(() => server.closedConnections() === 1)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(errors).toEqual([])
    client.close()
  })

  it("rejects when the headers have not come within headersTimeoutMs, and closes the connection", async () => {
    const server = await serve(() => {})
    const client = makeNodeHttpClient()
    const started = Date.now()
    await expect(client.post(postTo(server.url, { headersTimeoutMs: 100 }))).rejects.toThrow(/no answer within/)
    // Timers may fire a millisecond early.
    expect(Date.now() - started).toBeGreaterThanOrEqual(95)
    expect(server.seen).toHaveLength(1)
    await until(() => server.closedConnections() === 1)
    client.close()
  })

  it("headersTimeoutMs does not limit the body once the headers came", async () => {
    const server = await serve((_, res) => {
      res.writeHead(200)
      res.write("first ")
      setTimeout(() => res.end("and last"), 300)
    })
    const client = makeNodeHttpClient()
    const message = await client.post(postTo(server.url, { headersTimeoutMs: 100 }))
    expect(await readText(message)).toBe("first and last")
    client.close()
  })

  it("rejects when it cannot connect, and for a protocol it does not speak", async () => {
    const client = makeNodeHttpClient()
    const closed = await serve((_, res) => res.end())
    const deadUrl = closed.url
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
    await expect(client.post(postTo(deadUrl))).rejects.toMatchObject({ code: "ECONNREFUSED" })
    await expect(client.post(postTo("ftp://127.0.0.1/x"))).rejects.toThrow(/unsupported protocol/)
    client.close()
  })

  it("speaks TLS to an https URL (a plain HTTP server there fails the handshake)", async () => {
    const server = await serve((_, res) => res.end("plain"))
    const client = makeNodeHttpClient()
    await expect(client.post(postTo(`https://127.0.0.1:${server.port}/`))).rejects.toMatchObject({
      code: expect.stringMatching(/EPROTO|ECONNRESET|ERR_SSL/)
    })
    expect(server.seen).toHaveLength(0)
    client.close()
  })
})
