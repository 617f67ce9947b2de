import { Command, Options } from "@effect/cli"
import { HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import { hostLayer } from "../../app/host.js"
import { resolveConfigDir, resolveDataDir } from "../../app/locations.js"
import { packageVersion } from "../../app/package-root.js"
import { webRoot } from "../../app/package-root.js"
import { serverLayer } from "../../rpc/server.js"
import { CliError } from "../errors.js"
import { stdout } from "../io.js"
import * as shared from "../options.js"

const port = Options.integer("port").pipe(Options.withDescription("Port to listen on (0: any free port)"), Options.withDefault(7420))
const host = Options.text("host").pipe(
  Options.withDescription("Address to bind; anything but loopback requires a configured token"),
  Options.withDefault("127.0.0.1")
)
const token = Options.text("token").pipe(
  Options.withDescription("Bearer token clients must send (default: $CUSTOM_AGENT_TOKEN, else a new random one)"),
  Options.optional
)

const loopback = new Set(["127.0.0.1", "localhost", "::1", "[::1]"])

export const serveCommand = Command.make(
  "serve",
  {
    port,
    host,
    token,
    model: shared.model,
    script: shared.script,
    maxOutputTokens: shared.maxOutputTokens,
    thinkingBudget: shared.thinkingBudget,
    dataDir: shared.dataDir,
    store: shared.store
  },
  (args) =>
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
            dataDir: resolveDataDir(Option.getOrUndefined(args.dataDir)),
            configDir: resolveConfigDir(),
            version: packageVersion(),
            store: args.store,
            model: {
              spec: args.model,
              ...(Option.isSome(args.script) ? { scriptPath: args.script.value } : {}),
              ...(Option.isSome(args.maxOutputTokens) ? { maxOutputTokens: args.maxOutputTokens.value } : {}),
              ...(Option.isSome(args.thinkingBudget) ? { thinkingBudget: args.thinkingBudget.value } : {})
            }
          })
        ),
        Layer.provide(NodeHttpServer.layer(createServer, { port: args.port, host: args.host }))
      )
      return yield* Layer.launch(app)
    })
).pipe(Command.withDescription("Serve the RPC API and the web timeline over HTTP"))
