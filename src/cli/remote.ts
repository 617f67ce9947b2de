import { Options } from "@effect/cli"
import { Effect, Layer, Option } from "effect"
import { RpcClientError } from "@effect/rpc"
import { AgentClient, clientLayer, describeClientError } from "../rpc/client.js"
import { CliError } from "./errors.js"

export const server = Options.text("server").pipe(
  Options.withDescription("Talk to a running `custom-agent serve` at this URL instead of the local store"),
  Options.optional
)

export const token = Options.text("token").pipe(
  Options.withDescription("The server's bearer token (default: $CUSTOM_AGENT_TOKEN)"),
  Options.optional
)

/** The typed API client for `--server`; a missing token is one clear error before any request. */
export const remoteLayer = (url: string, flag: Option.Option<string>): Layer.Layer<AgentClient, CliError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const chosen = Option.orElse(flag, () => Option.fromNullable(process.env["CUSTOM_AGENT_TOKEN"]).pipe(Option.filter((t) => t !== "")))
      if (Option.isNone(chosen)) {
        return yield* new CliError({ message: `--server ${url} needs the server's token: pass --token or set CUSTOM_AGENT_TOKEN` })
      }
      const parsed = yield* Effect.try({
        try: () => new URL(url),
        catch: () => new CliError({ message: `--server ${url} is not a URL (e.g. http://127.0.0.1:7420)` })
      })
      return clientLayer({ url: parsed.toString(), token: chosen.value })
    })
  )

/** An RPC transport failure (server down, refused token) as one line naming the server. */
export const describeTransport = (url: string) => <E>(error: E): E | CliError =>
  error instanceof RpcClientError.RpcClientError ? new CliError({ message: `server ${url}: ${describeClientError(error)}` }) : error
