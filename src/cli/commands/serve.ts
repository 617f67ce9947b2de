import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as shared from "../options.js"

const port = Options.integer("port").pipe(Options.withDescription("Port to listen on (0: a free port the system picks)"), Options.withDefault(7420))
const host = Options.text("host").pipe(
  Options.withDescription("Address to bind; anything but loopback requires a configured token"),
  Options.withDefault("127.0.0.1")
)
const token = Options.text("token").pipe(
  Options.withDescription("Bearer token clients must send (default: $CUSTOM_AGENT_TOKEN, else a new random one)"),
  Options.optional
)

export const serveCommand = Command.make(
  "serve",
  {
    port,
    host,
    token,
    sessionIdle: shared.sessionIdle,
    ...shared.agent
  },
  (args) => Effect.flatMap(Effect.promise(() => import("./serve-server.js")), (server) => server.serve(args))
).pipe(Command.withDescription("Serve the RPC API and the web timeline over HTTP"))
