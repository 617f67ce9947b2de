import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { AgentClient } from "../../rpc/client.js"
import { missing } from "../session-args.js"
import type { Source } from "./sessions.js"

/** Sessions through a server's API, loaded only for `--server`. */
export const remoteSource = Effect.gen(function* () {
  const client = yield* AgentClient
  // The API reads a log one way: its export (a turn a dead process left open closed first).
  const exported = (sessionId: string) =>
    client.ExportSession({ sessionId }).pipe(Stream.catchTag("SessionNotFound", () => Stream.fail(missing(sessionId))))
  const source: Source = {
    list: client.ListSessions(),
    export: exported,
    events: exported,
    importLog: (events, unverified) => client.ImportSession({ events, unverified }),
    rename: (sessionId, title) => client.RenameSession({ sessionId, title, by: "cli" }).pipe(Effect.catchTag("SessionNotFound", () => Effect.fail(missing(sessionId)))),
    archive: (sessionId, archived) =>
      client.ArchiveSession({ sessionId, archived, by: "cli" }).pipe(Effect.catchTag("SessionNotFound", () => Effect.fail(missing(sessionId)))),
    remove: (sessionId) => client.DeleteSession({ sessionId, by: "cli" }).pipe(Effect.catchTag("SessionNotFound", () => Effect.fail(missing(sessionId))))
  }
  return source
})
