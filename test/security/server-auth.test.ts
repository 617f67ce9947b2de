import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { request as httpRequest } from "node:http"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot } from "../support/rpc-test-client.js"

/**
 * Authentication is a property of the server, not of a path: the router normalizes spellings
 * (`/RPC`, `//rpc`, `/%72pc`, `/rpc/`, `/./rpc`, a query) that a guard comparing the path to
 * `/rpc` let through unauthenticated. Every request that is not a static read needs the token
 * and is held to the body limit, whatever its path.
 */

const token = "test-token-server-auth-0123456789"
const maxBodyBytes = 16 * 1024
const web = makeWebRoot()
afterAll(web.remove)

const Server = serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1", maxBodyBytes }).pipe(
  Layer.provide(hostTestLayer(MemoryStore.layer, { responses: [] })),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

const portOf = Effect.map(HttpServer.HttpServer, (server) => (server.address._tag === "TcpAddress" ? server.address.port : 0))

const listSessions = `${JSON.stringify({ _tag: "Request", id: "1", tag: "ListSessions", payload: {}, headers: [] })}\n`
const setBypass = `${JSON.stringify({ _tag: "Request", id: "2", tag: "SetMode", payload: { sessionId: "ses_x", mode: "bypass" }, headers: [] })}\n`

interface Answer {
  readonly status: number
  readonly body: string
}

/** A raw request, so the path goes out exactly as written (no client normalizes it). */
const send = (port: number, method: string, path: string, body: string, headers: Record<string, string> = {}) =>
  Effect.async<Answer, Error>((resume) => {
    let answered = false
    const req = httpRequest({ host: "127.0.0.1", port, method, path, headers: { "content-type": "application/ndjson", "transfer-encoding": "chunked", ...headers } })
    req.on("response", (res) => {
      answered = true
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body: text })))
    })
    // Writing into a connection the server is done with (a 413) may fail; the answer is what counts.
    req.on("error", (error) => {
      if (!answered) resume(Effect.fail(error))
    })
    // In pieces, as a chunked body: the guard counts it as it arrives and answers at the limit.
    const pieces = body.match(/[\s\S]{1,4096}/g) ?? [""]
    const writeFrom = (index: number): void => {
      if (answered) return
      const piece = pieces[index]
      if (piece === undefined) return void req.end()
      if (req.write(piece)) setImmediate(() => writeFrom(index + 1))
      else req.once("drain", () => writeFrom(index + 1))
    }
    writeFrom(0)
    return Effect.sync(() => req.destroy())
  })

const spellings = ["/rpc", "/RPC", "/Rpc", "/rpc/", "//rpc", "/%72pc", "/%2frpc", "/./rpc", "/x/../rpc", "/rpc?x=1", "/rpc#x", "/rpc;x", "/"]

layer(Server)("security: the server authenticates every request, whatever its path", (it) => {
  it.effect("no spelling of the RPC path answers an RPC without the token", () =>
    Effect.gen(function* () {
      const port = yield* portOf
      for (const path of spellings) {
        for (const body of [listSessions, setBypass]) {
          const answer = yield* send(port, "POST", path, body)
          expect(answer.status, `POST ${path}`).toBe(401)
          expect(answer.body, `POST ${path}`).not.toContain('"_tag":"Exit"')
          expect(JSON.parse(answer.body), `POST ${path}`).toMatchObject({ _tag: "Unauthorized" })
        }
      }
    })
  )

  it.effect("a wrong token is refused the same way on every spelling", () =>
    Effect.gen(function* () {
      const port = yield* portOf
      for (const path of spellings) {
        const answer = yield* send(port, "POST", path, listSessions, { authorization: "Bearer not-the-token" })
        expect(answer.status, `POST ${path}`).toBe(401)
      }
    })
  )

  it.effect("other methods that carry a body need the token too", () =>
    Effect.gen(function* () {
      const port = yield* portOf
      for (const method of ["PUT", "PATCH", "DELETE"]) {
        const answer = yield* send(port, method, "/RPC", listSessions)
        expect(answer.status, method).toBe(401)
      }
    })
  )

  it.effect("the body limit holds on every path, also with the token", () =>
    Effect.gen(function* () {
      const port = yield* portOf
      const big = `${JSON.stringify({ _tag: "Request", id: "1", tag: "ListSessions", payload: {}, headers: [], pad: "x".repeat(maxBodyBytes) })}\n`
      for (const path of ["/rpc", "/RPC", "//rpc", "/%72pc", "/rpc/"]) {
        const answer = yield* send(port, "POST", path, big, { authorization: `Bearer ${token}` })
        expect(answer.status, `POST ${path}`).toBe(413)
      }
    })
  )

  it.effect("with the token the API answers, and the page's static files need none", () =>
    Effect.gen(function* () {
      const port = yield* portOf
      const answer = yield* send(port, "POST", "/rpc", listSessions, { authorization: `Bearer ${token}` })
      expect(answer.status).toBe(200)
      expect(answer.body).toContain('"_tag":"Exit"')
      const page = yield* send(port, "GET", "/", "")
      expect(page.status).toBe(200)
      // A GET never reaches the RPC app, whatever its path.
      const get = yield* send(port, "GET", "/RPC", "")
      expect(get.body).not.toContain('"_tag":"Exit"')
    })
  )
})
