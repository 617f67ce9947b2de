import type { Stream as AcpStream } from "@agentclientprotocol/sdk/unstable"
import { agent as agentApp, methods, RequestError } from "@agentclientprotocol/sdk/unstable"
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import type { AcpAgent } from "./agent.js"
import type { ProtocolError } from "./errors.js"
import type { ClientPeer } from "./peer.js"

/**
 * Serves `agent` on one connection until the client goes away. The SDK parses params
 * (invalid ones get -32602), answers unknown methods (-32601) and malformed lines (-32700);
 * each handler runs its effect in a fiber that ends with the connection.
 */
export const serveConnection = (stream: AcpStream, peer: ClientPeer, agent: AcpAgent, name: string) =>
  Effect.gen(function* () {
    const run = yield* FiberSet.makeRuntimePromise()
    const fork = yield* FiberSet.makeRuntime()
    // `immediate`: a handler's first steps run as the SDK dispatches its message. With
    // session/prompt registered before session/cancel (the SDK tries handlers in that order),
    // a cancel counts against the prompts that arrived before it and not the ones after.
    const handle = <A>(effect: Effect.Effect<A, ProtocolError>): Promise<A> =>
      run(effect.pipe(Effect.mapError((error) => new RequestError(error.code, error.message, error.data))), { immediate: true })

    /**
     * The session's commands go out once its answer has: the SDK queues a response for writing
     * as soon as the handler's promise settles (microtasks), so a notification queued from the
     * next turn of the event loop follows it on the wire, and the client knows the session.
     */
    const announceAfter = <A>(answer: Promise<A>, sessionId: (answer: A) => string): Promise<A> =>
      answer.then((response) => {
        setImmediate(() => fork(agent.announceCommands(sessionId(response))))
        return response
      })

    const app = agentApp({ name })
      .onRequest(methods.agent.initialize, ({ params }) => handle(agent.initialize(params)))
      .onRequest(methods.agent.session.new, ({ params }) => announceAfter(handle(agent.newSession(params)), (response) => response.sessionId))
      .onRequest(methods.agent.session.load, ({ params }) => announceAfter(handle(agent.loadSession(params)), () => params.sessionId))
      .onRequest(methods.agent.session.fork, ({ params }) => announceAfter(handle(agent.forkSession(params)), (response) => response.sessionId))
      .onRequest(methods.agent.session.list, ({ params }) => handle(agent.listSessions(params)))
      .onRequest(methods.agent.session.setMode, ({ params }) => handle(agent.setMode(params)))
      .onRequest(methods.agent.session.prompt, ({ params, signal }) => {
        // `$/cancel_request` for the prompt, or the connection closing, cancels it as session/cancel does.
        signal.addEventListener("abort", () => fork(agent.cancel({ sessionId: params.sessionId }), { immediate: true }), { once: true })
        return handle(agent.prompt(params))
      })
      .onNotification(methods.agent.session.cancel, ({ params }) => handle(agent.cancel(params)))

    const connection = yield* Effect.acquireRelease(
      Effect.sync(() => app.connect(stream)),
      (open) => Effect.sync(() => open.close())
    )
    peer.attach(connection.client)
    yield* Effect.promise(() => connection.closed)
  })
