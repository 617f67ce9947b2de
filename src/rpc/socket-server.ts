import { HttpRouter, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Server } from "node:http"
import { AgentRpcs, rpcPath } from "./group.js"
import { DEFAULT_MAX_BODY_BYTES, type ExpectedToken, guard } from "./guard.js"
import { handlersLayer } from "./handlers.js"
import { HostControlRpcs, HostProcess, SOCKET_HOST } from "./host-control.js"
import { makeNodeServer } from "./listen.js"

export interface SocketServerOptions {
  /** The Unix socket's path (in the data directory, which is the user's alone). */
  readonly path: string
  readonly token: ExpectedToken
  readonly maxBodyBytes?: number
  /** Told of every connection as it opens and closes: the host's idle exit counts them. */
  readonly onConnections?: (open: number) => void
}

const controlHandlers = HostControlRpcs.toLayer(
  Effect.gen(function* () {
    const process = yield* HostProcess
    return {
      HostStatus: () => process.status,
      StopHost: ({ when }) => process.stop(when)
    }
  })
)

/** A Node server on the socket that reports how many connections it holds. */
const countingServer = (options: SocketServerOptions) => (): Server => {
  const server = makeNodeServer()()
  let open = 0
  server.on("connection", (socket) => {
    open++
    options.onConnections?.(open)
    socket.once("close", () => {
      open--
      options.onConnections?.(open)
    })
  })
  return server
}

/**
 * The local host's API on its Unix socket: the same RPC API as `serve` (behind the same guard
 * and token), plus the host's own control (status, stop); no web page. Provide the host and a
 * HostProcess; the socket opens only once they are built.
 */
export const socketServerLayer = (options: SocketServerOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const rpc = yield* RpcServer.toHttpApp(AgentRpcs.merge(HostControlRpcs), { disableFatalDefects: true })
      const router = HttpRouter.empty.pipe(HttpRouter.post(rpcPath, rpc))
      return HttpServer.serve(
        guard({ allowedHosts: [SOCKET_HOST], token: options.token, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, rpcPath })(router)
      )
    })
  ).pipe(
    Layer.provide([handlersLayer(), controlHandlers]),
    Layer.provide(RpcSerialization.layerNdjson),
    Layer.provideMerge(NodeHttpServer.layer(countingServer(options), { path: options.path }))
  )
