import { Command, Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { usageError } from "../errors.js"
import * as shared from "../options.js"
import { serverTokenFile } from "../token-source.js"

const port = Options.integer("port").pipe(
  Options.withDescription("Port to listen on, 0 to 65535 (0: a free port the system picks)"),
  Options.mapEffect((n) => (n >= 0 && n <= 65535 ? Effect.succeed(n) : Effect.fail(usageError(`--port must be a port number from 0 to 65535, got ${n}`)))),
  Options.withDefault(7420)
)
const host = Options.text("host").pipe(
  Options.withDescription("Address to bind (an IPv6 one with or without brackets); anything but loopback requires a configured token of 16 characters or more"),
  Options.withDefault("127.0.0.1")
)
const allowedHost = Options.text("allowed-host").pipe(
  Options.withDescription(
    "Another name clients reach the server by (a LAN name, a reverse proxy's), accepted in the Host header; repeatable. The bound address (each of this machine's on 0.0.0.0 or ::) and loopback names always are"
  ),
  Options.repeated
)

const rotateToken = Options.boolean("rotate-token").pipe(
  Options.withDescription(
    "Replace the token serve keeps in its data directory (server-token, used when neither $CUSTOM_AGENT_TOKEN nor --token-file gives one) with a new one: pages and clients holding the old one are refused"
  )
)

const cluster = Options.text("cluster").pipe(
  Options.withDescription("Run as one runner of a cluster on this PostgreSQL database (a URL without its password: give that in PGPASSWORD or ~/.pgpass; run `cluster migrate` on it first)"),
  Options.optional
)
const runnerAddress = Options.text("runner-address").pipe(
  Options.withDescription("With --cluster: HOST:PORT where the other runners reach this one (required; a private address: that port has no authentication)"),
  Options.optional
)
const failoverAfter = Options.integer("failover-after").pipe(
  Options.withDescription("With --cluster: seconds after which a dead runner's sessions move to the others (default 10)"),
  Options.filterMap((seconds) => (seconds > 0 ? Option.some(seconds) : Option.none()), "--failover-after must be a positive number of seconds"),
  Options.withDefault(10)
)

export const serveCommand = Command.make(
  "serve",
  {
    port,
    host,
    tokenFile: serverTokenFile,
    rotateToken,
    allowedHost,
    sessionIdle: shared.sessionIdle,
    cluster,
    runnerAddress,
    failoverAfter,
    ...shared.agent
  },
  (args) => Effect.flatMap(Effect.promise(() => import("./serve-server.js")), (server) => server.serve(args))
).pipe(Command.withDescription("Serve the RPC API and the web timeline over HTTP"))
