import * as Effect from "effect/Effect"
import { messageOf } from "../../domain/cause-message.js"
import { AgentHost } from "../../host/AgentHost.js"
import { McpHub } from "../../services/McpHub.js"
import { MemoryStore } from "../../services/MemoryStore.js"
import { PermissionEngine } from "../../services/PermissionEngine.js"
import { hasTag, type SessionClient } from "./session-client.js"

/** Recorded as who did it: the person at this terminal. */
const BY = "cli"

/** The interactive session's calls on the host in this process (the local store). */
export const localSessionClient = Effect.gen(function* () {
  const host = yield* AgentHost
  const permissions = yield* PermissionEngine
  const memory = yield* MemoryStore
  const mcp = yield* McpHub
  const client: SessionClient = {
    server: undefined,
    host: "here",
    createSession: (input) => host.createSession({ ...input, client: BY }),
    getSession: host.getSession,
    listSessions: host.listSessions,
    subscribe: host.subscribe,
    prompt: (input) => host.prompt({ ...input, client: BY }),
    listCommands: (cwd) => host.listCommands({ cwd }),
    respondPermission: (sessionId, toolCallId, answer) =>
      host.respondPermission(sessionId, toolCallId, answer).pipe(
        Effect.as(true),
        Effect.catchTag("PermissionNotPending", () => Effect.succeed(false))
      ),
    cancel: host.cancel,
    setMode: (sessionId, mode) => host.setMode(sessionId, mode, BY),
    setModel: (sessionId, model) => host.setModel(sessionId, { model, by: BY }),
    compact: (sessionId) =>
      Effect.map(host.compact(sessionId), (event) => ({
        compacted: event._tag === "Some",
        summary: event._tag === "Some" && event.value.type === "context.compacted" ? event.value.payload.summary : undefined
      })),
    exportSession: host.exportSession,
    rewind: host.rewind,
    redo: host.redo,
    fork: (sessionId) => host.forkSession(sessionId, { by: BY }),
    projectTrust: permissions.projectTrust,
    // As the trust question before a session asks it: the person's own decision.
    trustProject: (workspaceRoot, sha256) => permissions.trustProject(workspaceRoot, sha256, "user"),
    rememberedAnswers: (workspaceRoot) => permissions.listRemembered({ workspaceRoot }),
    revokeAnswer: (id) => permissions.revokeRemembered(id, BY),
    memories: (workspaceRoot) =>
      Effect.all({ memories: memory.forWorkspace(workspaceRoot), candidates: memory.pending }),
    reviewMemory: (candidateId, decision) => host.reviewMemory({ candidateId, decision, by: BY }),
    mcpStatus: mcp.status,
    isLagged: (error) => hasTag(error, "SubscriberLagged"),
    // In this process a subscription has no connection to lose.
    isDropped: () => false,
    describe: messageOf
  }
  return client
})
