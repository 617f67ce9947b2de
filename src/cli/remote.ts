import { Options } from "@effect/cli"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { AgentClient } from "../rpc/client.js"
import { CliError, USAGE_EXIT_CODE, usageError } from "./errors.js"
import { clientTokenFile, configuredToken, TOKEN_ENV } from "./token-source.js"

/** An http(s) URL, checked before anything starts: anything else is a usage error naming --server. */
const serverUrl = (text: string) => {
  const problem = usageError(`--server must be the URL of a custom-agent serve, such as http://127.0.0.1:7420, got ${text}`)
  if (!URL.canParse(text)) return Effect.fail(problem)
  const url = new URL(text)
  return url.protocol === "http:" || url.protocol === "https:" ? Effect.succeed(text) : Effect.fail(problem)
}

export const server = Options.text("server").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription("Talk to a running `custom-agent serve` at this URL instead of the local store"),
  Options.mapEffect(serverUrl),
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
        return yield* new CliError({
          message: `--server needs the server's token: set ${TOKEN_ENV} or pass --token-file PATH (serve prints its token when it starts)`,
          exitCode: USAGE_EXIT_CODE
        })
      }
      const parsed = yield* Effect.try({
        try: () => new URL(url),
        // Checked when --server was parsed: only a caller that skipped the option gets here.
        catch: () => new CliError({ message: `--server must be a URL such as http://127.0.0.1:7420, got ${url}`, exitCode: USAGE_EXIT_CODE })
      })
      const client = yield* Effect.promise(() => import("../rpc/client.js"))
      return client.clientLayer({ url: parsed.toString(), token: chosen.value.value })
    })
  )

const isTransportError = (error: unknown): boolean =>
  typeof error === "object" && error !== null && "_tag" in error && error._tag === "RpcClientError"

/** An RPC transport failure (peer down, refused token) as one line beginning with `peer`, the server it names. */
export const describeTransportAs = (peer: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | CliError, R> =>
  Effect.catchIf(effect, isTransportError, (error) =>
    Effect.flatMap(Effect.promise(() => import("../rpc/client.js")), (client) =>
      Effect.fail(
        new CliError({
          message: `${peer}: ${client.describeClientError(error)}`
        })
      )
    )
  )

/** An RPC transport failure (server down, refused token) as one line naming the server. */
export const describeTransport = (url: string) => describeTransportAs(`server ${url}`)
