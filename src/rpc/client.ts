import { FetchHttpClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { RpcClient, type RpcClientError, type RpcGroup, RpcSerialization } from "@effect/rpc"
import { Context, Layer } from "effect"
import { AgentRpcs } from "./group.js"

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

/** The client over HTTP (fetch), NDJSON framing, the bearer token on every request. */
export const clientLayer = (options: ClientOptions) =>
  Layer.scoped(AgentClient, RpcClient.make(AgentRpcs)).pipe(
    Layer.provide(
      RpcClient.layerProtocolHttp({
        url: new URL("/rpc", options.url).toString(),
        transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(options.token))
      })
    ),
    Layer.provide([FetchHttpClient.layer, RpcSerialization.layerNdjson])
  )
