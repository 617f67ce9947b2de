import { afterEach, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import { makeNodeHttpFetch } from "../../../src/layers/model/node-http-fetch.js"

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

const readAll = async (body: ReadableStream<Uint8Array> | null) => {
  if (body === null) return ""
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let text = ""
  for (let read = await reader.read(); !read.done; read = await reader.read()) text += decoder.decode(read.value, { stream: true })
  return text + decoder.decode()
}

const until = async (done: () => boolean) => {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(done()).toBe(true)
}

describe("makeNodeHttpFetch (the Anthropic SDK's transport)", () => {
  it("sends the method, headers and a string body with its length; answers with status, headers and body", async () => {
    const server = await serve((_, res) => {
      res.setHeader("set-cookie", ["a=1", "b=2"])
      res.writeHead(201, "Made", { "content-type": "application/json", "request-id": "req_1" })
      res.end('{"ok":true}')
    })
    const transport = makeNodeHttpFetch()
    const response = await transport.fetch(`${server.url}/v1/messages?beta=true`, {
      method: "POST",
      headers: new Headers({ "content-type": "application/json", "x-api-key": "k" }),
      body: '{"model":"m","text":"é"}'
    })
    expect(response.status).toBe(201)
    expect(response.statusText).toBe("Made")
    expect(response.headers.get("request-id")).toBe("req_1")
    expect(response.headers.get("set-cookie")).toBe("a=1, b=2")
    expect(await response.json()).toEqual({ ok: true })
    expect(server.seen).toEqual([
      expect.objectContaining({ method: "POST", body: '{"model":"m","text":"é"}' })
    ])
    const headers = server.seen[0]?.headers
    expect(headers?.["x-api-key"]).toBe("k")
    expect(headers?.["content-length"]).toBe(String(Buffer.byteLength('{"model":"m","text":"é"}')))
    expect(headers?.["transfer-encoding"]).toBeUndefined()
    expect(headers?.["accept-encoding"]).toBeUndefined()
    transport.close()
  })

  it("sends byte bodies; takes a URL object and a Request without a body", async () => {
    const server = await serve((_, res) => res.end("ok"))
    const transport = makeNodeHttpFetch()
    await transport.fetch(new URL(`${server.url}/bytes`), { method: "PUT", body: new TextEncoder().encode("bytes") })
    await transport.fetch(new Request(`${server.url}/req`, { method: "DELETE", headers: { "x-from": "request" } }))
    expect(server.seen.map((s) => [s.method, s.body])).toEqual([["PUT", "bytes"], ["DELETE", ""]])
    expect(server.seen[1]?.headers["x-from"]).toBe("request")
    transport.close()
  })

  it("streams the body as it arrives, before the server has finished", async () => {
    let finish = () => {}
    const server = await serve((_, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write("event: one\n\n")
      finish = () => res.end("event: two\n\n")
    })
    const transport = makeNodeHttpFetch()
    const response = await transport.fetch(server.url, { method: "POST", body: "{}" })
    const reader = response.body?.getReader()
    const first = await reader?.read()
    expect(new TextDecoder().decode(first?.value)).toBe("event: one\n\n")
    finish()
    const second = await reader?.read()
    expect(new TextDecoder().decode(second?.value)).toBe("event: two\n\n")
    expect((await reader?.read())?.done).toBe(true)
    transport.close()
  })

  it("gives no body for a 204", async () => {
    const server = await serve((_, res) => {
      res.writeHead(204)
      res.end()
    })
    const transport = makeNodeHttpFetch()
    const response = await transport.fetch(server.url)
    expect(response.status).toBe(204)
    expect(response.body).toBeNull()
    transport.close()
  })

  it("reuses a kept-alive connection, and close() ends the idle ones", async () => {
    const server = await serve((_, res) => res.end("ok"))
    const transport = makeNodeHttpFetch()
    for (let i = 0; i < 3; i++) await readAll((await transport.fetch(server.url)).body)
    expect(server.seen).toHaveLength(3)
    expect(server.connections()).toBe(1)
    transport.close()
    await until(() => server.closedConnections() === 1)
  })

  it("closes a kept-alive connection idle for longer than idleMs, and opens a new one after", async () => {
    const server = await serve((_, res) => res.end("ok"))
    const transport = makeNodeHttpFetch({ idleMs: 100 })
    await readAll((await transport.fetch(server.url)).body)
    await until(() => server.closedConnections() === 1)
    expect(await readAll((await transport.fetch(server.url)).body)).toBe("ok")
    expect(server.connections()).toBe(2)
    transport.close()
  })

  it("a reused connection's answer may pause longer than idleMs", async () => {
    const server = await serve((req, res) => {
      res.writeHead(200)
      res.write("first ")
      if (req.url === "/slow") setTimeout(() => res.end("and last"), 300)
      else res.end("quick")
    })
    const transport = makeNodeHttpFetch({ idleMs: 100 })
    expect(await readAll((await transport.fetch(server.url)).body)).toBe("first quick")
    expect(await readAll((await transport.fetch(`${server.url}/slow`)).body)).toBe("first and last")
    expect(server.connections()).toBe(1)
    transport.close()
  })

  it("a body cut off by the server is an error, not a short answer", async () => {
    const server = await serve((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write("event: partial\n\n")
      setTimeout(() => req.socket.destroy(), 20)
    })
    const transport = makeNodeHttpFetch()
    const response = await transport.fetch(server.url)
    await expect(readAll(response.body)).rejects.toThrow()
    transport.close()
  })

  it("aborting rejects the request, or errors a body being read, and closes the connection", async () => {
    const server = await answerWithoutEnd()
    const transport = makeNodeHttpFetch()
    const early = new AbortController()
    early.abort()
    await expect(transport.fetch(server.url, { signal: early.signal })).rejects.toMatchObject({ name: "AbortError" })
    expect(server.seen).toHaveLength(0)

    const late = new AbortController()
    const response = await transport.fetch(server.url, { signal: late.signal })
    const reader = response.body?.getReader()
    await reader?.read()
    late.abort()
    await expect(reader?.read()).rejects.toMatchObject({ name: "AbortError" })
    await until(() => server.closedConnections() === 1)
    transport.close()
  })

  it("cancelling the body closes the connection", async () => {
    const server = await answerWithoutEnd()
    const transport = makeNodeHttpFetch()
    const response = await transport.fetch(server.url)
    await response.body?.cancel()
    await until(() => server.closedConnections() === 1)
    transport.close()
  })

  it("rejects when it cannot connect, and for what it does not send", async () => {
    const transport = makeNodeHttpFetch()
    const closed = await serve((_, res) => res.end())
    const deadUrl = closed.url
    for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve))
    await expect(transport.fetch(deadUrl)).rejects.toMatchObject({ code: "ECONNREFUSED" })
    await expect(transport.fetch("ftp://127.0.0.1/x")).rejects.toThrow(/unsupported protocol/)
    await expect(transport.fetch(deadUrl, { method: "POST", body: new Blob(["x"]) })).rejects.toThrow(/string and byte bodies/)
    await expect(transport.fetch(new Request(deadUrl, { method: "POST", body: "x" }))).rejects.toThrow(/Request's body/)
    transport.close()
  })

  it("speaks TLS to an https URL (a plain HTTP server there fails the handshake)", async () => {
    const server = await serve((_, res) => res.end("plain"))
    const transport = makeNodeHttpFetch()
    await expect(transport.fetch(`https://127.0.0.1:${server.port}/`)).rejects.toMatchObject({ code: expect.stringMatching(/EPROTO|ECONNRESET|ERR_SSL/) })
    expect(server.seen).toHaveLength(0)
    transport.close()
  })
})
