import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { hostLayer } from "../../app/host.js"
import { webRoot } from "../../app/package-root.js"
import { serverLayer } from "../../rpc/server.js"
import { type AgentArgs, agentSetup } from "../agent-setup.js"
import { CliError } from "../errors.js"
import { stdout } from "../io.js"

export interface ServeArgs extends AgentArgs {
  readonly port: number
  readonly host: string
  readonly token: Option.Option<string>
  /** Seconds an unused session stays in memory. */
  readonly sessionIdle: number
}

const loopback = new Set(["127.0.0.1", "localhost", "::1", "[::1]"])

/** The server itself, loaded only by `serve`: the HTTP stack stays out of every other command's start-up. */
export const serve = (args: ServeArgs) =>
    Effect.gen(function* () {
      const configured = Option.orElse(args.token, () => Option.fromNullable(process.env["CUSTOM_AGENT_TOKEN"]).pipe(Option.filter((t) => t !== "")))
      if (!loopback.has(args.host) && Option.isNone(configured)) {
        return yield* new CliError({
          message: `refusing to listen on ${args.host} without a configured token: set CUSTOM_AGENT_TOKEN or pass --token`
        })
      }
      const bearer = Option.getOrElse(configured, () => randomBytes(24).toString("base64url"))
      const announce = Layer.effectDiscard(
        HttpServer.addressWith((address) => {
          const port = address._tag === "TcpAddress" ? address.port : 0
          const name = args.host.includes(":") ? `[${args.host}]` : args.host
          const base = `http://${name}:${port}`
          return stdout(
            `custom-agent is serving on ${base}\n` +
              `open ${base}/#token=${bearer}\n` +
              (Option.isNone(configured) ? `token ${bearer}\n` : "")
          )
        })
      )
      const app = Layer.mergeAll(serverLayer({ token: bearer, webRoot: webRoot(), boundHost: args.host }), announce).pipe(
        Layer.provide(
          hostLayer({
            ...agentSetup(args),
            engine: { sessionIdleMs: args.sessionIdle * 1000 }
          })
        ),
        Layer.provide(NodeHttpServer.layer(createServer, { port: args.port, host: args.host }))
      )
      return yield* Layer.launch(app)
    })
