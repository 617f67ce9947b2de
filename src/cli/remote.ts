import { Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { AgentClient } from "../rpc/client.js"
import { CliError } from "./errors.js"
import { clientTokenFile, configuredToken, TOKEN_ENV } from "./token-source.js"

export const server = Options.text("server").pipe(
  Options.withDescription("Talk to a running `custom-agent serve` at this URL instead of the local store"),
  Options.optional
)

/** `--token-file PATH`; `--token VALUE` is refused (see token-source.ts). */
export const tokenFile = clientTokenFile

/**
 * The typed API client for `--server`, loaded only then (the RPC stack stays out of local
 * runs); a missing token is one clear error before any request.
 */
export const remoteLayer = (url: string, tokenFile: Option.Option<string>): Layer.Layer<AgentClient, CliError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const chosen = yield* configuredToken(tokenFile)
      if (Option.isNone(chosen)) {
        return yield* new CliError({ message: `--server ${url} needs the server's token: set ${TOKEN_ENV} or pass --token-file PATH` })
      }
      const parsed = yield* Effect.try({
        try: () => new URL(url),
        catch: () => new CliError({ message: `--server ${url} is not a URL (e.g. http://127.0.0.1:7420)` })
      })
      const client = yield* Effect.promise(() => import("../rpc/client.js"))
      return client.clientLayer({ url: parsed.toString(), token: chosen.value.value })
    })
  )

const isTransportError = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "RpcClientError"

/** An RPC transport failure (server down, refused token) as one line naming the server. */
export const describeTransport = (url: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | CliError, R> =>
  Effect.catchIf(effect, isTransportError, (error) =>
    Effect.flatMap(Effect.promise(() => import("../rpc/client.js")), (client) =>
      Effect.fail(
        new CliError({
          message: `server ${url}: ${client.describeClientError(error)}`
        })
      )
    )
  )
