import type {
  AgentContext,
  ClientCapabilities,
  ClientRequestMethod,
  ClientRequestParamsByMethod,
  ClientRequestResponsesByMethod,
  SessionNotification
} from "@agentclientprotocol/sdk/unstable"
import { methods } from "@agentclientprotocol/sdk/unstable"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { messageOf } from "../domain/cause-message.js"

/** A call to the client failed: it answered with an error, or the connection is gone. */
export class ClientCallFailed extends Data.TaggedError("ClientCallFailed")<{
  readonly method: string
  readonly message: string
  /** What the connection failed with, kept for whoever handles or logs this. */
  readonly cause?: unknown
}> {}

/**
 * The client at the other end of the connection: how to call it, and what it said it can do
 * in `initialize`. Nothing here calls a client method the client did not advertise.
 */
export class ClientPeer {
  private context: AgentContext | undefined
  private capabilities: ClientCapabilities = {}

  /** Set as soon as `connect` returns, before the first message is read. */
  attach(context: AgentContext): void {
    this.context = context
  }

  remember(capabilities: ClientCapabilities | undefined): void {
    this.capabilities = capabilities ?? {}
  }

  get readsFiles(): boolean {
    return this.capabilities.fs?.readTextFile === true
  }

  get writesFiles(): boolean {
    return this.capabilities.fs?.writeTextFile === true
  }

  /** A request to the client; interrupting it sends `$/cancel_request` and stops waiting. */
  request<M extends ClientRequestMethod>(method: M, params: ClientRequestParamsByMethod[M]): Effect.Effect<ClientRequestResponsesByMethod[M], ClientCallFailed> {
    return Effect.suspend(() => {
      const context = this.context
      if (context === undefined) return Effect.fail(new ClientCallFailed({ method, message: "not connected" }))
      return Effect.tryPromise({
        try: (signal) => context.request(method, params, { cancellationSignal: signal, stopWaitingOnCancel: true }),
        catch: (error) => new ClientCallFailed({ method, message: messageOf(error), cause: error })
      })
    })
  }

  /** A `session/update` notification, written before this returns (so updates keep their order). */
  update(notification: SessionNotification): Effect.Effect<void, ClientCallFailed> {
    return Effect.suspend(() => {
      const context = this.context
      if (context === undefined) return Effect.fail(new ClientCallFailed({ method: methods.client.session.update, message: "not connected" }))
      return Effect.tryPromise({
        try: () => context.notify(methods.client.session.update, notification),
        catch: (error) => new ClientCallFailed({ method: methods.client.session.update, message: messageOf(error), cause: error })
      })
    })
  }
}
