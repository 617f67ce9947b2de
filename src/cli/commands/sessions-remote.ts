import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { AgentClient } from "../../rpc/client.js"
import { missing, type Source } from "./sessions.js"

/** Sessions through a server's API, loaded only for `--server`. */
export const remoteSource = Effect.gen(function* () {
  const client = yield* AgentClient
  const source: Source = {
    list: client.ListSessions(),
    events: (sessionId) =>
      client.ExportSession({ sessionId }).pipe(Stream.catchTag("SessionNotFound", () => Stream.fail(missing(sessionId)))),
    importLog: (events) => Effect.asVoid(client.ImportSession({ events }))
  }
  return source
})
