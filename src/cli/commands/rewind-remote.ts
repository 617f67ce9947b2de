import * as Effect from "effect/Effect"
import { AgentClient } from "../../rpc/client.js"
import { forkedOf, type RewindClient } from "../rewind-client.js"

/** Rewind, redo and fork through a server's API, loaded only for `--server`. */
export const remoteRewindClient = Effect.map(
  AgentClient,
  (client): RewindClient => ({
    workspaceOf: (sessionId) => Effect.map(client.GetSession({ sessionId }), (view) => view.cwd),
    rewind: (sessionId, request) => client.Rewind({ sessionId, ...request }),
    redo: (sessionId, request) => client.Redo({ sessionId, ...request }),
    fork: (sessionId, atSequence) =>
      Effect.gen(function* () {
        const view = yield* client.ForkSession({ sessionId, by: "cli", ...(atSequence === undefined ? {} : { atSequence }) })
        return { sessionId: view.sessionId, forked: yield* forkedOf(client.ExportSession({ sessionId: view.sessionId })) }
      })
  })
)
