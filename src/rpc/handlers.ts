import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { approveMemory, deleteMemory, rejectMemory } from "../core/memory-review.js"
import { SessionEngine } from "../core/SessionEngine.js"
import { AgentHost } from "../host/AgentHost.js"
import { Ids } from "../services/Ids.js"
import { MemoryStore } from "../services/MemoryStore.js"
import { PermissionEngine } from "../services/PermissionEngine.js"
import { AgentRpcs } from "./group.js"

/** Protocol code translates; the host owns every decision. */
export const handlersLayer = AgentRpcs.toLayer(
  Effect.gen(function* () {
    const host = yield* AgentHost
    const memory = yield* MemoryStore
    const permissions = yield* PermissionEngine
    // Memory review records its decision in the session's log through the engine.
    const reviewContext = Effect.provideService(SessionEngine, yield* SessionEngine)
    const withIds = Effect.provideService(Ids, yield* Ids)
    return {
      CreateSession: ({ cwd, title, client }) =>
        host.createSession({ cwd, client: client ?? "rpc", ...(title === undefined ? {} : { title }) }),
      ListSessions: () => host.listSessions,
      GetSession: ({ sessionId }) => host.getSession(sessionId),
      Prompt: ({ sessionId, content, mode, permissionMode, client, attachments }) =>
        host.prompt({
          sessionId,
          content,
          mode,
          client: client ?? "rpc",
          ...(permissionMode === undefined ? {} : { permissionMode }),
          ...(attachments === undefined ? {} : { attachments })
        }),
      Subscribe: ({ sessionId, afterSequence }) => host.subscribe(sessionId, afterSequence),
      Cancel: ({ sessionId }) => host.cancel(sessionId),
      SetMode: ({ sessionId, mode, by }) => host.setMode(sessionId, mode, by ?? "rpc"),
      RespondPermission: ({ sessionId, toolCallId, answer }) => host.respondPermission(sessionId, toolCallId, answer),
      EditQueue: ({ sessionId, messageId, action }) => host.editQueue(sessionId, messageId, action),
      ExportSession: ({ sessionId }) => host.exportSession(sessionId),
      ImportSession: ({ events }) => host.importSession(events),
      Compact: ({ sessionId }) =>
        Effect.map(host.compact(sessionId), (event) =>
          Option.match(event, {
            onNone: () => ({ compacted: false }),
            onSome: (e) => (e.type === "context.compacted" ? { compacted: true, summary: e.payload.summary } : { compacted: true })
          })
        ),
      ListMemoryCandidates: () => memory.pending,
      ListMemories: ({ workspaceRoot }) => (workspaceRoot === undefined ? memory.all : memory.forWorkspace(workspaceRoot)),
      ReviewMemory: ({ candidateId, decision, reason, by }) =>
        (decision === "approve"
          ? Effect.asVoid(approveMemory(candidateId, by ?? "rpc").pipe(withIds))
          : rejectMemory(candidateId, by ?? "rpc", reason)
        ).pipe(reviewContext, Effect.provideService(MemoryStore, memory)),
      DeleteMemory: ({ memoryId, by }) =>
        Effect.asVoid(deleteMemory(memoryId, by ?? "rpc")).pipe(reviewContext, Effect.provideService(MemoryStore, memory)),
      GetProjectTrust: ({ workspaceRoot }) => permissions.projectTrust(workspaceRoot),
      TrustProject: ({ workspaceRoot, sha256, by }) => permissions.trustProject(workspaceRoot, sha256, by ?? "rpc")
    }
  })
)
