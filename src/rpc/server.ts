import { HttpRouter, HttpServer } from "@effect/platform"
import { RpcSerialization, RpcServer } from "@effect/rpc"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { networkInterfaces } from "node:os"
import { AgentRpcs, rpcPath } from "./group.js"
import { DEFAULT_MAX_BODY_BYTES, type ExpectedToken, guard } from "./guard.js"
import { handlersLayer } from "./handlers.js"
import { acceptedHosts } from "./host-names.js"
import { staticFiles } from "./static-files.js"

export interface ServerOptions {
  readonly token: ExpectedToken
  /** The built web timeline (`dist/web`). */
  readonly webRoot: string
  /** The address we bind, so requests naming it are accepted besides loopback names. */
  readonly boundHost: string
  /** More names the Host header may give (`serve --allowed-host`). */
  readonly allowedHosts?: ReadonlyArray<string>
  readonly maxBodyBytes?: number
  /** How often idle streams send a keep-alive frame (default 15 s). */
  readonly keepAlive?: Duration.DurationInput
}

const portOf = (address: HttpServer.Address) => (address._tag === "TcpAddress" ? address.port : 0)

/**
 * The RPC API and the web timeline on one HTTP server (whatever HttpServer is provided:
 * a real port in production, a random one in tests), behind the guard.
 */
export const serverLayer = (options: ServerOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const server = yield* HttpServer.HttpServer
      const port = portOf(server.address)
      const interfaceAddresses = Object.values(networkInterfaces()).flatMap((addresses) => (addresses ?? []).map((a) => a.address))
      const rpc = yield* RpcServer.toHttpApp(AgentRpcs, { disableFatalDefects: true })
      const router = HttpRouter.empty.pipe(HttpRouter.post(rpcPath, rpc), HttpRouter.get("*", staticFiles(options.webRoot)))
      return HttpServer.serve(
        guard({
          allowedHosts: acceptedHosts({ boundHost: options.boundHost, port, extra: options.allowedHosts ?? [], interfaceAddresses }),
          token: options.token,
          maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
          rpcPath
        })(router)
      )
    })
  ).pipe(Layer.provide(handlersLayer(options.keepAlive === undefined ? {} : { keepAlive: options.keepAlive })), Layer.provide(RpcSerialization.layerNdjson))
