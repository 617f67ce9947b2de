import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { AgentHost } from "../host/AgentHost.js"
import { MemoryStore } from "../services/MemoryStore.js"
import { PermissionEngine } from "../services/PermissionEngine.js"
import { compactResult } from "./compact-result.js"
import { defaultKeepAlive, withKeepAlive } from "./keep-alive.js"
import { AgentRpcs } from "./group.js"

export interface HandlerOptions {
  /** How often an idle Subscribe stream sends a KeepAlive frame. */
  readonly keepAlive?: Duration.DurationInput
}

const keepAliveFrame = { _tag: "KeepAlive" } as const

/** Protocol code translates; the host owns every decision. */
export const handlersLayer = (options: HandlerOptions = {}) => AgentRpcs.toLayer(
  Effect.gen(function* () {
    const host = yield* AgentHost
    const memory = yield* MemoryStore
    const permissions = yield* PermissionEngine
    return {
      CreateSession: ({ cwd, title, client, attachments }) =>
        host.createSession({
          cwd,
          client: client ?? "rpc",
          ...(title === undefined ? {} : { title }),
          ...(attachments === undefined ? {} : { attachments })
        }),
      ListSessions: () => host.listSessions,
      WatchSessions: () => host.watchSessions,
      RenameSession: ({ sessionId, title, by }) => host.renameSession(sessionId, title, by ?? "rpc"),
      ArchiveSession: ({ sessionId, archived, by }) => host.archiveSession(sessionId, archived, by ?? "rpc"),
      GetSession: ({ sessionId }) => host.getSession(sessionId),
      Prompt: ({ sessionId, content, mode, permissionMode, client, attachments, maxSteps, terms, requestId }) =>
        host.prompt({
          sessionId,
          content,
          mode,
          client: client ?? "rpc",
          ...(permissionMode === undefined ? {} : { permissionMode }),
          ...(attachments === undefined ? {} : { attachments }),
          ...(maxSteps === undefined ? {} : { maxSteps }),
          ...(terms === undefined ? {} : { terms }),
          ...(requestId === undefined ? {} : { requestId })
        }),
      Subscribe: ({ sessionId, afterSequence }) =>
        withKeepAlive(host.subscribe(sessionId, afterSequence), keepAliveFrame, options.keepAlive ?? defaultKeepAlive),
      Cancel: ({ sessionId }) => host.cancel(sessionId),
      SetMode: ({ sessionId, mode, by }) => host.setMode(sessionId, mode, by ?? "rpc"),
      RespondPermission: ({ sessionId, toolCallId, answer }) => host.respondPermission(sessionId, toolCallId, answer),
      EditQueue: ({ sessionId, messageId, action }) => host.editQueue(sessionId, messageId, action),
      ExportSession: ({ sessionId }) => host.exportSession(sessionId),
      ImportSession: ({ events, unverified }) => host.importSession(events, { unverified: unverified ?? false }),
      Compact: ({ sessionId }) => Effect.map(host.compact(sessionId), compactResult),
      Rewind: ({ sessionId, to, what, path, force, by }) =>
        host.rewind(sessionId, {
          to,
          by: by ?? "rpc",
          ...(what === undefined ? {} : { what }),
          ...(path === undefined ? {} : { path }),
          ...(force === undefined ? {} : { force })
        }),
      Redo: ({ sessionId, force, by }) => host.redo(sessionId, { by: by ?? "rpc", ...(force === undefined ? {} : { force }) }),
      ForkSession: ({ sessionId, atSequence, by }) =>
        host.forkSession(sessionId, { by: by ?? "rpc", ...(atSequence === undefined ? {} : { atSequence }) }),
      ListMemoryCandidates: () => memory.pending,
      ListMemories: ({ workspaceRoot }) => (workspaceRoot === undefined ? memory.all : memory.forWorkspace(workspaceRoot)),
      ReviewMemory: ({ candidateId, decision, reason, by }) =>
        host.reviewMemory({ candidateId, decision, by: by ?? "rpc", ...(reason === undefined ? {} : { reason }) }),
      DeleteMemory: ({ memoryId, by }) => host.deleteMemory(memoryId, by ?? "rpc"),
      GetProjectTrust: ({ workspaceRoot }) => permissions.projectTrust(workspaceRoot),
      TrustProject: ({ workspaceRoot, sha256, by }) => permissions.trustProject(workspaceRoot, sha256, by ?? "rpc")
    }
  })
)
