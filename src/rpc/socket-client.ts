import { HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { RpcClient, type RpcClientError, type RpcGroup, RpcSerialization } from "@effect/rpc"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { AgentOptions } from "node:https"
import { AgentClient, refusalsFail } from "./client.js"
import { AgentRpcs, rpcPath } from "./group.js"
import { HostControlRpcs, SOCKET_HOST } from "./host-control.js"

/** The local host's own control (status, stop), on its socket. */
export class HostControlClient extends Context.Tag("custom-agent/HostControlClient")<
  HostControlClient,
  RpcClient.RpcClient<RpcGroup.Rpcs<typeof HostControlRpcs>, RpcClientError.RpcClientError>
>() {}

export interface SocketClientOptions {
  readonly path: string
  readonly token: string
}

/**
 * HTTP over the Unix socket: Node's agent connects to the path (Node reads `socketPath` from
 * the agent's options for every request it makes).
 */
const socketHttpClient = (path: string) => {
  const options: AgentOptions & { readonly socketPath: string } = { keepAlive: true, socketPath: path }
  return Layer.effect(HttpClient.HttpClient, Effect.map(HttpClient.HttpClient, refusalsFail)).pipe(
    Layer.provide(NodeHttpClient.layerWithoutAgent),
    Layer.provide(NodeHttpClient.makeAgentLayer(options))
  )
}

const protocol = (options: SocketClientOptions) =>
  RpcClient.layerProtocolHttp({
    url: `http://${SOCKET_HOST}${rpcPath}`,
    transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(options.token))
  }).pipe(Layer.provide([socketHttpClient(options.path), RpcSerialization.layerNdjson]))

/** The agent's API on the local host's socket: what `--server` gives over TCP. */
export const socketClientLayer = (options: SocketClientOptions) => Layer.scoped(AgentClient, RpcClient.make(AgentRpcs)).pipe(Layer.provide(protocol(options)))

/** The host's control on its socket. */
export const hostControlLayer = (options: SocketClientOptions) =>
  Layer.scoped(HostControlClient, RpcClient.make(HostControlRpcs)).pipe(Layer.provide(protocol(options)))
