import { Effect } from "effect"
import { AgentHost } from "../host/AgentHost.js"
import { AgentRpcs } from "./group.js"

/** Protocol code translates; the host owns every decision. */
export const handlersLayer = AgentRpcs.toLayer(
  Effect.gen(function* () {
    const host = yield* AgentHost
    return {
      CreateSession: ({ cwd, title, client }) =>
        host.createSession({ cwd, client: client ?? "rpc", ...(title === undefined ? {} : { title }) }),
      ListSessions: () => host.listSessions,
      GetSession: ({ sessionId }) => host.getSession(sessionId),
      Prompt: ({ sessionId, content, mode, permissionMode }) =>
        host.prompt({ sessionId, content, mode, ...(permissionMode === undefined ? {} : { permissionMode }) }),
      Subscribe: ({ sessionId, afterSequence }) => host.subscribe(sessionId, afterSequence),
      Cancel: ({ sessionId }) => host.cancel(sessionId),
      RespondPermission: ({ sessionId, toolCallId, answer }) => host.respondPermission(sessionId, toolCallId, answer),
      EditQueue: ({ sessionId, messageId, action }) => host.editQueue(sessionId, messageId, action),
      ExportSession: ({ sessionId }) => host.exportSession(sessionId),
      ImportSession: ({ events }) => host.importSession(events)
    }
  })
)
