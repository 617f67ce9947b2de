import { HttpClient, HttpClientRequest, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { request as httpRequest } from "node:http"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, testClientLayer } from "../support/rpc-test-client.js"

const token = "test-token-guard-0123456789"
const maxBodyBytes = 64 * 1024
const web = makeWebRoot()
const webRoot = web.dir
afterAll(web.remove)

const ClientLive = testClientLayer(token)

const E2E = ClientLive.pipe(
  Layer.provideMerge(serverLayer({ token, webRoot, boundHost: "127.0.0.1", maxBodyBytes })),
  Layer.provide(hostTestLayer(MemoryStore.layer, { responses: [] })),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

const portOf = Effect.map(HttpServer.HttpServer, (server) => (server.address._tag === "TcpAddress" ? server.address.port : 0))

interface Answer {
  readonly status: number
  readonly body: string
  /** Bytes the client had written when the answer came. */
  readonly sent: number
  readonly finished: boolean
}

/**
 * POSTs a chunked body (no Content-Length) of `chunks` pieces, waiting for each to drain, and
 * stops writing as soon as an answer arrives. `finished`: the whole body went out before it.
 */
const postChunked = (port: number, chunks: ReadonlyArray<string>) =>
  Effect.async<Answer, Error>((resume) => {
    let sent = 0
    let answered = false
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/rpc",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/ndjson", "transfer-encoding": "chunked" }
    })
    req.on("response", (res) => {
      answered = true
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (text: string) => (body += text))
      res.on("end", () => {
        resume(Effect.succeed({ status: res.statusCode ?? 0, body, sent, finished: req.writableEnded }))
        req.destroy()
      })
    })
    // Writing into a connection the server is done with may fail; the answer is what counts.
    req.on("error", (error) => {
      if (!answered) resume(Effect.fail(error))
    })
    const writeFrom = (index: number): void => {
      if (answered) return
      const chunk = chunks[index]
      if (chunk === undefined) return void req.end()
      sent += Buffer.byteLength(chunk)
      if (req.write(chunk)) setImmediate(() => writeFrom(index + 1))
      else req.once("drain", () => writeFrom(index + 1))
    }
    writeFrom(0)
    return Effect.sync(() => req.destroy())
  })

const post = (body: string) =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    client.execute(HttpClientRequest.post("/rpc").pipe(HttpClientRequest.bearerToken(token), HttpClientRequest.bodyText(body, "application/ndjson")))
  ).pipe(Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, body: text }))))

const request = (fields: Record<string, unknown>) =>
  `${JSON.stringify({ _tag: "Request", id: "1", tag: "ListSessions", payload: {}, headers: [], ...fields })}\n`

layer(E2E, { timeout: 30_000, excludeTestServices: true })("the RPC guard", (it) => {
  it.effect("a chunked body over the limit is answered 413 with a typed error before it ends; the server keeps serving", () =>
    Effect.gen(function* () {
      const port = yield* portOf
      // 400 chunks of 16 KiB: 6.4 MiB, a hundred times the limit, and never ended by this client before the answer.
      const piece = "x".repeat(16 * 1024)
      const answer = yield* postChunked(port, Array.from({ length: 400 }, () => piece))
      expect(answer.status).toBe(413)
      expect(JSON.parse(answer.body)).toMatchObject({ _tag: "PayloadTooLarge", message: `request body exceeds ${maxBodyBytes} bytes` })
      expect(answer.finished).toBe(false)
      expect(answer.sent).toBeLessThan(400 * piece.length)
      const client = yield* AgentClient
      expect(Array.isArray(yield* client.ListSessions())).toBe(true)
    }))

  it.effect("a chunked body within the limit is served like any other", () =>
    Effect.gen(function* () {
      const port = yield* portOf
      const body = request({})
      const answer = yield* postChunked(port, [body.slice(0, 10), body.slice(10)])
      expect(answer.status).toBe(200)
      expect(answer.finished).toBe(true)
      expect(answer.body).toContain('"_tag":"Exit"')
    }))

  it.effect("malformed envelopes get a typed JSON 400 naming the problem, never an empty 500", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<readonly [string, string]> = [
        [`${JSON.stringify({ _tag: "Request", id: "1", tag: "ListSessions", payload: {} })}\n`, "line 1: headers: is missing"],
        [request({ headers: "authorization: x" }), "line 1: headers:"],
        [request({ headers: [["only-a-name"]] }), "line 1: headers.0"],
        [request({ headers: [[1, 2]] }), "line 1: headers.0.0"],
        [request({ headers: null }), "line 1: headers:"],
        [request({ id: "abc" }), "line 1: id: a request id is a decimal integer in a string"],
        [request({ id: 7 }), "line 1: id:"],
        [`${JSON.stringify({ _tag: "Request", id: "1", payload: {}, headers: [] })}\n`, "line 1: tag: is missing"],
        [`${JSON.stringify({ _tag: "Nope" })}\n`, 'line 1: unknown message _tag "Nope"'],
        [`${JSON.stringify({ id: "1" })}\n`, "line 1: unknown message _tag undefined"],
        [`${JSON.stringify({ _tag: "Interrupt" })}\n`, "line 1: requestId: is missing"],
        [`${request({})}${JSON.stringify({ _tag: "Ack", requestId: [] })}\n`, "line 2: requestId:"],
        ["[1,2]\n", "line 1: not a JSON object"],
        ["{not json\n", "line 1: not valid JSON"]
      ]
      for (const [body, message] of cases) {
        const answer = yield* post(body)
        expect(answer.status, body).toBe(400)
        const parsed: unknown = JSON.parse(answer.body)
        expect(parsed, body).toMatchObject({ _tag: "MalformedRequest" })
        expect(typeof parsed === "object" && parsed !== null && "message" in parsed ? String(parsed.message) : "", body).toContain(message)
      }
      // Well-formed envelopes still reach the RPC server, with traces and several messages a line each.
      const fine = yield* post(request({ traceId: "t", spanId: "s", sampled: true }) + `${JSON.stringify({ _tag: "Ping" })}\n`)
      expect(fine.status).toBe(200)
      expect(fine.body).toContain('"_tag":"Exit"')
    }))
})
