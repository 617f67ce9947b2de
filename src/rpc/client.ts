import { FetchHttpClient, HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { RpcClient, RpcClientError, type RpcGroup, RpcSerialization } from "@effect/rpc"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AgentRpcs, rpcPath } from "./group.js"

/** A typed client of the agent's API, for the CLI, the web page and other Effect apps. */
export class AgentClient extends Context.Tag("custom-agent/AgentClient")<
  AgentClient,
  RpcClient.RpcClient<RpcGroup.Rpcs<typeof AgentRpcs>, RpcClientError.RpcClientError>
>() {}

export interface ClientOptions {
  /** The server's base URL, e.g. http://127.0.0.1:7420 */
  readonly url: string
  readonly token: string
}

const reasonOf = (body: string): string => {
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed === "object" && parsed !== null && "message" in parsed && typeof parsed.message === "string") return parsed.message
  } catch {
    // Not our JSON error body: fall through to the raw text.
  }
  return body.slice(0, 200)
}

/**
 * The server answers refusals (401, 403, 413, 400) with a JSON body, not an RPC stream:
 * turn them into a failed request that says why, instead of a stream that never ends.
 */
export const refusalsFail = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transformResponse(client, (response) =>
    Effect.flatMap(response, (res) =>
      res.status < 300
        ? Effect.succeed(res)
        : Effect.flatMap(Effect.orElseSucceed(res.text, () => ""), (body) =>
            Effect.fail(
              new HttpClientError.ResponseError({
                request: res.request,
                response: res,
                reason: "StatusCode",
                description: `${res.status}: ${reasonOf(body)}`
              })
            )
          )
    )
  )

const refusingHttpClient = Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, refusalsFail)).pipe(
  Layer.provide(FetchHttpClient.layer)
)

/** The client over HTTP (fetch), NDJSON framing, the bearer token on every request. */
export const clientLayer = (options: ClientOptions) =>
  Layer.scoped(AgentClient, RpcClient.make(AgentRpcs)).pipe(
    Layer.provide(
      RpcClient.layerProtocolHttp({
        url: new URL(rpcPath, options.url).toString(),
        transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(options.token))
      })
    ),
    Layer.provide([refusingHttpClient, RpcSerialization.layerNdjson])
  )

/** What went wrong with a request, as a person would want it said. */
export const describeClientError = (error: unknown): string => {
  if (!(error instanceof RpcClientError.RpcClientError)) return String(error)
  const cause: unknown = error.cause
  if (cause instanceof HttpClientError.ResponseError && cause.description !== undefined) return cause.description
  if (cause instanceof HttpClientError.RequestError) return `cannot reach the server (${cause.description ?? cause.reason})`
  return error.message
}
