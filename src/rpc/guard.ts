import { Headers, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpApp } from "@effect/platform"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { timingSafeEqual } from "node:crypto"

export interface GuardOptions {
  /** `host:port` values this server answers to (loopback names and the bound address). */
  readonly allowedHosts: ReadonlyArray<string>
  readonly token: string
  /** Largest RPC request body accepted. */
  readonly maxBodyBytes: number
  readonly rpcPath: string
}

const refuse = (status: number, tag: string, message: string) =>
  HttpServerResponse.unsafeJson({ _tag: tag, message }, { status })

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Every NDJSON line must be a JSON object before the RPC server sees it. */
const malformedLine = (body: string): string | undefined => {
  const lines = body.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? ""
    if (line === "") continue
    try {
      const value: unknown = JSON.parse(line)
      if (typeof value !== "object" || value === null || Array.isArray(value)) return `line ${i + 1}: not a JSON object`
    } catch (error) {
      return `line ${i + 1}: not valid JSON (${error instanceof Error ? error.message : String(error)})`
    }
  }
  return undefined
}

/**
 * A local server that can run shell commands must not be reachable by any web page the
 * user visits: only our own Host (no DNS rebinding), only our own Origin (no cross-site
 * requests), and the bearer token on every RPC. Oversized or malformed bodies are answered
 * with a typed JSON error; the server keeps serving.
 */
export const guard = (options: GuardOptions) => <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const host = request.headers["host"] ?? ""
    if (!options.allowedHosts.includes(host.toLowerCase())) {
      return refuse(403, "ForbiddenHost", `requests must be addressed to this server (Host: ${host || "missing"})`)
    }
    const origin = request.headers["origin"]
    if (origin !== undefined && !options.allowedHosts.some((allowed) => origin.toLowerCase() === `http://${allowed}`)) {
      return refuse(403, "ForbiddenOrigin", `cross-origin requests are refused (Origin: ${origin})`)
    }
    const url = new URL(request.url, "http://localhost")
    if (url.pathname !== options.rpcPath) return yield* app

    const authorization = Option.getOrElse(Headers.get(request.headers, "authorization"), () => "")
    const token = authorization.startsWith("Bearer ") ? authorization.slice("Bearer ".length).trim() : ""
    if (token === "" || !sameToken(token, options.token)) {
      return refuse(401, "Unauthorized", "a valid bearer token is required (Authorization: Bearer <token>)")
    }
    if (request.method !== "POST") return refuse(405, "MethodNotAllowed", `${options.rpcPath} takes POST`)
    const declared = Number(request.headers["content-length"] ?? "0")
    if (declared > options.maxBodyBytes) {
      return refuse(413, "PayloadTooLarge", `request body of ${declared} bytes exceeds ${options.maxBodyBytes}`)
    }
    const body = yield* request.text.pipe(Effect.either)
    if (body._tag === "Left") {
      return refuse(413, "PayloadTooLarge", `request body exceeds ${options.maxBodyBytes} bytes or could not be read`)
    }
    const problem = malformedLine(body.right)
    if (problem !== undefined) return refuse(400, "MalformedRequest", problem)
    return yield* app
  })
