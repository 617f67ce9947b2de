import { afterAll, describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Layer } from "effect"
import { HttpServer } from "@effect/platform"
import { request as httpRequest } from "node:http"
import { connect, createServer as createNetServer } from "node:net"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { type HttpTimeouts, listeningLayer, makeNodeServer } from "../../src/rpc/listen.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot } from "../support/rpc-test-client.js"

const token = "test-token-0123456789"
const web = makeWebRoot()
afterAll(web.remove)

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createNetServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      probe.close(() => resolve(port))
    })
  })

interface Answer {
  readonly status: number
  readonly body: string
}

/** One POST to /rpc; `onChunk` sees the body as it streams and may end the read early (true). */
const post = (port: number, line: string, onChunk: (soFar: string) => boolean = () => false) =>
  new Promise<Answer>((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port, method: "POST", path: "/rpc", headers: { authorization: `Bearer ${token}`, "content-type": "application/ndjson" } },
      (response) => {
        let body = ""
        response.on("data", (chunk: Buffer) => {
          body += chunk.toString("utf8")
          if (onChunk(body)) {
            resolve({ status: response.statusCode ?? 0, body })
            req.destroy()
          }
        })
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }))
        response.on("error", reject)
      }
    )
    // A bound, not a pause: an accepted request left unanswered is the failure this file looks for.
    req.setTimeout(10_000, () => req.destroy(Object.assign(new Error("no answer within 10 s"), { code: "UNANSWERED" })))
    req.on("error", reject)
    req.end(line)
  })

const rpcLine = (tag: string, payload: unknown) => `${JSON.stringify({ _tag: "Request", id: "1", tag, payload, headers: [] })}\n`

const short: HttpTimeouts = { requestMs: 300, headersMs: 200, keepAliveMs: 100, checkEveryMs: 50 }

describe("the server's start-up: a request is answered or refused, never left open", { timeout: 30_000 }, () => {
  it("the port opens only once the host is built: before, a connection is refused; after, answered", async () => {
    const port = await freePort()
    const building = Effect.runSync(Deferred.make<void>())
    const gate = Effect.runSync(Deferred.make<void>())
    const ready = Effect.runSync(Deferred.make<void>())
    const slowHost = Layer.unwrapEffect(
      Effect.gen(function* () {
        yield* Deferred.succeed(building, undefined)
        yield* Deferred.await(gate)
        return hostTestLayer(MemoryStore.layer)
      })
    )
    const announced = Layer.effectDiscard(HttpServer.addressWith(() => Deferred.succeed(ready, undefined)))
    const app = announced.pipe(Layer.provide(listeningLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1", port, host: "127.0.0.1" })), Layer.provide(slowHost))
    const fiber = Effect.runFork(Layer.launch(app))
    try {
      await Effect.runPromise(Deferred.await(building))
      // Accepted and left waiting is the failure: bounded here, while a refusal comes at once.
      const early = await post(port, rpcLine("ListSessions", {})).then(
        (answer) => ({ answered: answer.status }),
        (error: NodeJS.ErrnoException) => ({ refused: error.code })
      )
      expect(early).toEqual({ refused: "ECONNREFUSED" })
      await Effect.runPromise(Deferred.succeed(gate, undefined))
      await Effect.runPromise(Deferred.await(ready))
      const answer = await post(port, rpcLine("ListSessions", {}))
      expect(answer.status).toBe(200)
      expect(answer.body).toContain('"Success"')
    } finally {
      await Effect.runPromise(Fiber.interrupt(fiber))
    }
  })

  it("a request no app takes yet (or any more) gets 503 at once; once the app's handler is there, only it answers", async () => {
    const server = makeNodeServer(short)()
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const address = server.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    try {
      const early = await post(port, rpcLine("ListSessions", {}))
      expect(early.status).toBe(503)
      expect(early.body).toContain("starting or stopping")
      server.on("request", (_request, response) => response.end("the app"))
      expect(await post(port, rpcLine("ListSessions", {}))).toEqual({ status: 200, body: "the app" })
    } finally {
      server.close()
    }
  })
})

describe("the server's timeouts", { timeout: 30_000 }, () => {
  it("a client that never finishes its headers is let go; a subscription streams on past the request bound", async () => {
    const port = await freePort()
    const ready = Effect.runSync(Deferred.make<void>())
    const announced = Layer.effectDiscard(HttpServer.addressWith(() => Deferred.succeed(ready, undefined)))
    const app = announced.pipe(
      Layer.provide(listeningLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1", port, host: "127.0.0.1", timeouts: short, keepAlive: "50 millis" })),
      Layer.provide(hostTestLayer(MemoryStore.layer))
    )
    const fiber = Effect.runFork(Layer.launch(app))
    try {
      await Effect.runPromise(Deferred.await(ready))
      // Half a request: the server answers 408 and closes, instead of holding the socket.
      const half = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, "127.0.0.1", () => socket.write(`POST /rpc HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`))
        let received = ""
        socket.on("data", (chunk: Buffer) => (received += chunk.toString("utf8")))
        socket.on("close", () => resolve(received))
        socket.on("error", reject)
      })
      expect(half).toMatch(/^HTTP\/1\.1 408/)

      const created = await post(port, rpcLine("CreateSession", { cwd: "/work" }))
      const sessionId = /"sessionId":"(ses_[^"]+)"/.exec(created.body)?.[1] ?? ""
      expect(sessionId).not.toBe("")
      // Keep-alive frames every 50 ms: ten times the request bound (300 ms) of them, and the stream is still open.
      const started = Date.now()
      const frames = (body: string) => body.split('"KeepAlive"').length - 1
      const streamed = await post(port, rpcLine("Subscribe", { sessionId }), (body) => frames(body) >= 1 && Date.now() - started > 10 * short.requestMs)
      expect(streamed.status).toBe(200)
      expect(frames(streamed.body)).toBeGreaterThan(10)
    } finally {
      expect(Exit.isInterrupted(await Effect.runPromise(Fiber.interrupt(fiber)))).toBe(true)
    }
  })
})
