import { HttpClientError } from "@effect/platform"
import { type Rpc, RpcClientError, type RpcGroup } from "@effect/rpc"
import { Cause, type Context, Data, Effect, Either, Fiber, ManagedRuntime } from "effect"
import { AgentClient, clientLayer, describeClientError } from "../../src/rpc/client.js"
import type { AgentRpcs } from "../../src/rpc/group.js"

export type Client = Context.Tag.Service<typeof AgentClient>

/** What a call of the API answers, by its name: the page knows the server's types only through the API. */
export type Answer<Tag extends string> = Rpc.Success<Rpc.ExtractTag<RpcGroup.Rpcs<typeof AgentRpcs>, Tag>>

/** Anything that went wrong that the API does not declare: shown, never thrown at the page. */
export class Unexpected extends Data.TaggedError("Unexpected")<{ readonly message: string }> {}

/** The HTTP status behind a client error, when the server answered with one. */
const statusOf = (error: unknown): number | undefined =>
  error instanceof RpcClientError.RpcClientError && error.cause instanceof HttpClientError.ResponseError
    ? error.cause.response.status
    : undefined

/** The server refused our token (it restarted with a new one, or the link was wrong). */
export const isRefused = (error: unknown): boolean => statusOf(error) === 401

/**
 * Nothing answered: the request never reached a server (it stopped, restarts, or the network
 * is down), or a proxy in front of it says it is not there.
 */
export const isUnreachable = (error: unknown): boolean => {
  if (!(error instanceof RpcClientError.RpcClientError)) return false
  if (error.cause instanceof HttpClientError.RequestError) return true
  const status = statusOf(error)
  return status === 502 || status === 503 || status === 504
}

/** What the page says, once, while the server does not answer. */
export const unreachableText = "The server is not answering: it may have stopped or be restarting."

/** One line a person can act on. */
export const describe = (error: unknown): string => {
  if (isRefused(error)) return "The server refused the token. Open the link `custom-agent serve` printed."
  if (isUnreachable(error)) return unreachableText
  if (error instanceof RpcClientError.RpcClientError) return describeClientError(error)
  if (error instanceof Error) return error.message
  return String(error)
}

export interface Api {
  /** Runs one call; every failure, declared or not, comes back as a Left. */
  readonly call: <A, E>(use: (client: Client) => Effect.Effect<A, E>) => Promise<Either.Either<A, E | Unexpected>>
  /** Runs a long-lived effect (a subscription); the returned function stops it. */
  readonly fork: (effect: Effect.Effect<void, never, AgentClient>) => () => void
  /** Stops everything this client runs (when the token changes). */
  readonly dispose: () => void
}

export const makeApi = (token: string, onRefused: () => void): Api => {
  const runtime = ManagedRuntime.make(clientLayer({ url: location.origin, token }))
  return {
    call: (use) =>
      runtime.runPromise(
        Effect.flatMap(AgentClient, use).pipe(
          Effect.tapError((error) => Effect.sync(() => (isRefused(error) ? onRefused() : undefined))),
          Effect.either,
          Effect.catchAllCause((cause) => Effect.succeed(Either.left(new Unexpected({ message: Cause.pretty(cause) }))))
        )
      ),
    fork: (effect) => {
      const fiber = runtime.runFork(effect)
      return () => {
        runtime.runFork(Fiber.interrupt(fiber))
      }
    },
    dispose: () => void runtime.dispose()
  }
}
