import { HttpClient, HttpClientRequest } from "@effect/platform"
import { RpcClient, RpcSerialization } from "@effect/rpc"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AgentClient } from "../../src/rpc/client.js"
import { AgentRpcs } from "../../src/rpc/group.js"

/** The typed client over HTTP against a test server (its base URL from the server's test layer), with the bearer token. */
export const testClientLayer = (token: string) =>
  Layer.scoped(AgentClient, RpcClient.make(AgentRpcs)).pipe(
    Layer.provide(
      RpcClient.layerProtocolHttp({
        url: "",
        transformClient: HttpClient.mapRequest((r) => r.pipe(HttpClientRequest.appendUrl("/rpc"), HttpClientRequest.bearerToken(token)))
      })
    ),
    Layer.provide(RpcSerialization.layerNdjson)
  )

/** A web root holding a bare index.html, for servers that serve the page too; `remove` in afterAll. */
export const makeWebRoot = () => {
  const dir = mkdtempSync(join(tmpdir(), "web-"))
  writeFileSync(join(dir, "index.html"), "<!doctype html><title>custom-agent</title>")
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** One request to the RPC endpoint as raw NDJSON, past the typed client's own checks; the response body. */
export const postRaw = (token: string, tag: string, payload: unknown) =>
  Effect.flatMap(HttpClient.HttpClient, (client) =>
    client.execute(
      HttpClientRequest.post("/rpc").pipe(
        HttpClientRequest.bearerToken(token),
        HttpClientRequest.bodyText(`${JSON.stringify({ _tag: "Request", id: "1", tag, payload, headers: [] })}\n`, "application/ndjson")
      )
    )
  ).pipe(Effect.flatMap((response) => response.text))
