import { Headers, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { timingSafeEqual } from "node:crypto"
import { envelopeProblem } from "./envelope.js"
import { readBody } from "./request-body.js"

/** The largest RPC request body a server (or the local host's socket) takes unless told otherwise. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

export interface GuardOptions {
  /** Host header values this server answers to, lower-case (`acceptedHosts`: loopback names, the bound address, `--allowed-host`). */
  readonly allowedHosts: ReadonlyArray<string>
  readonly token: ExpectedToken
  /** Largest RPC request body accepted. */
  readonly maxBodyBytes: number
  /** Where the RPC app is mounted, named in messages only: the guard never decides by path. */
  readonly rpcPath: string
}

/**
 * The token a request must carry: fixed, or asked for at each request (a token kept in a file
 * that `serve --rotate-token` may replace while the server runs); none refuses every request.
 */
export type ExpectedToken = string | (() => string | undefined)

const expectedNow = (token: ExpectedToken) => (typeof token === "string" ? token : token())

const refuse = (status: number, tag: string, message: string) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message }, { status })

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The request the RPC server reads: the same one, with the body already read here (a Node
 * request body can be read once).
 */
const withBody = (request: HttpServerRequest.HttpServerRequest, host: string, body: string) =>
  HttpServerRequest.fromWeb(new Request(`http://${host}${request.url}`, { method: request.method, headers: request.headers, body }))

/**
 * Only reads of the page's static files go without the token: a GET or HEAD, which the router
 * never hands to the RPC app (it is mounted for POST only). Every other request, whatever its
 * path and however the path is spelled (`/RPC`, `//rpc`, `/%72pc`, `/rpc/`), needs the token
 * and is held to the body limit, so no spelling the router normalizes differently can reach
 * the API unauthenticated.
 */
const isStaticRead = (method: string) => method === "GET" || method === "HEAD"

/**
 * A local server that can run shell commands must not be reachable by any web page the
 * user visits: only our own Host (no DNS rebinding), only our own Origin (no cross-site
 * requests), and the bearer token on every request but a static read. Oversized or malformed
 * bodies are answered with a typed JSON error; the server keeps serving.
 */
export const guard = (options: GuardOptions) => <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const host = request.headers["host"] ?? ""
    if (!options.allowedHosts.includes(host.toLowerCase())) {
      return refuse(
        403,
        "ForbiddenHost",
        `requests must be addressed to this server (Host: ${host || "missing"}); \`serve --allowed-host NAME\` accepts another name`
      )
    }
    const origin = request.headers["origin"]?.toLowerCase()
    // https too: a TLS-terminating proxy in front of an allowed name serves the page there.
    if (origin !== undefined && !options.allowedHosts.some((allowed) => origin === `http://${allowed}` || origin === `https://${allowed}`)) {
      return refuse(403, "ForbiddenOrigin", `cross-origin requests are refused (Origin: ${origin})`)
    }
    if (isStaticRead(request.method)) return yield* app

    const authorization = Option.getOrElse(Headers.get(request.headers, "authorization"), () => "")
    const token = authorization.startsWith("Bearer ") ? authorization.slice("Bearer ".length).trim() : ""
    const expected = expectedNow(options.token)
    if (token === "" || expected === undefined || !sameToken(token, expected)) {
      return refuse(401, "Unauthorized", "a valid bearer token is required (Authorization: Bearer <token>)")
    }
    if (request.method !== "POST") return refuse(405, "MethodNotAllowed", `${options.rpcPath} takes POST`)
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > options.maxBodyBytes) {
      return refuse(413, "PayloadTooLarge", `request body of ${declared} bytes exceeds ${options.maxBodyBytes}`)
    }
    // Counted as it arrives: a chunked body declares no length, and is cut off at the limit too.
    const body = yield* readBody(NodeHttpServerRequest.toIncomingMessage(request), options.maxBodyBytes).pipe(Effect.either)
    if (body._tag === "Left") {
      return body.left._tag === "BodyTooLarge"
        ? refuse(413, "PayloadTooLarge", `request body exceeds ${options.maxBodyBytes} bytes`)
        : refuse(400, "UnreadableBody", `the request body could not be read: ${body.left.reason}`)
    }
    const problem = envelopeProblem(body.right)
    if (problem !== undefined) return refuse(400, "MalformedRequest", problem)
    return yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBody(request, host, body.right))
  })
