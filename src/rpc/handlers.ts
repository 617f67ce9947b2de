import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { AgentHost } from "../host/AgentHost.js"
import { MemoryStore } from "../services/MemoryStore.js"
import { PermissionEngine } from "../services/PermissionEngine.js"
import { compactResult } from "./compact-result.js"
import { defaultKeepAlive, withKeepAlive } from "./keep-alive.js"
import { AgentRpcs } from "./group.js"
import { rpcOrigin } from "./origin.js"

export interface HandlerOptions {
  /** How often an idle Subscribe stream sends a KeepAlive frame. */
  readonly keepAlive?: Duration.DurationInput
}

const keepAliveFrame = { _tag: "KeepAlive" } as const

/**
 * Protocol code translates; the host owns every decision. Who did something is this transport's
 * to say: every actor a request names (`by`, `client`, an answer's `client`) is recorded as
 * `rpc` or `rpc:<name>` (origin.ts), so no client of the API passes for the local CLI.
 */
export const handlersLayer = (options: HandlerOptions = {}) => AgentRpcs.toLayer(
  Effect.gen(function* () {
    const host = yield* AgentHost
    const memory = yield* MemoryStore
    const permissions = yield* PermissionEngine
    return {
      CreateSession: ({ cwd, title, client, model, attachments }) =>
        host.createSession({
          cwd,
          client: rpcOrigin(client),
          ...(title === undefined ? {} : { title }),
          ...(model === undefined ? {} : { model }),
          ...(attachments === undefined ? {} : { attachments })
        }),
      ListSessions: () => host.listSessions,
      WatchSessions: () => host.watchSessions,
      RenameSession: ({ sessionId, title, by }) => host.renameSession(sessionId, title, rpcOrigin(by)),
      ArchiveSession: ({ sessionId, archived, by }) => host.archiveSession(sessionId, archived, rpcOrigin(by)),
      DeleteSession: ({ sessionId, by }) => host.deleteSession(sessionId, rpcOrigin(by)),
      GetSession: ({ sessionId }) => host.getSession(sessionId),
      ListCommands: (target) => host.listCommands(target),
      Prompt: (request) => host.prompt({ ...request, client: rpcOrigin(request.client) }),
      Subscribe: ({ sessionId, afterSequence }) =>
        withKeepAlive(host.subscribe(sessionId, afterSequence), keepAliveFrame, options.keepAlive ?? defaultKeepAlive),
      Cancel: ({ sessionId }) => host.cancel(sessionId),
      SetMode: ({ sessionId, mode, by }) => host.setMode(sessionId, mode, rpcOrigin(by)),
      SetModel: ({ sessionId, model, by }) => host.setModel(sessionId, { model, by: rpcOrigin(by) }),
      RespondPermission: ({ sessionId, toolCallId, answer }) => host.respondPermission(sessionId, toolCallId, { ...answer, client: rpcOrigin(answer.client) }),
      EditQueue: ({ sessionId, messageId, action }) => host.editQueue(sessionId, messageId, action),
      ExportSession: ({ sessionId }) => host.exportSession(sessionId),
      ImportSession: ({ events, unverified }) => host.importSession(events, { unverified: unverified ?? false }),
      Compact: ({ sessionId }) => Effect.map(host.compact(sessionId), compactResult),
      Rewind: ({ sessionId, to, what, path, force, by }) =>
        host.rewind(sessionId, {
          to,
          by: rpcOrigin(by),
          ...(what === undefined ? {} : { what }),
          ...(path === undefined ? {} : { path }),
          ...(force === undefined ? {} : { force })
        }),
      Redo: ({ sessionId, force, by }) => host.redo(sessionId, { by: rpcOrigin(by), ...(force === undefined ? {} : { force }) }),
      ForkSession: ({ sessionId, atSequence, by }) =>
        host.forkSession(sessionId, { by: rpcOrigin(by), ...(atSequence === undefined ? {} : { atSequence }) }),
      ListMemoryCandidates: () => memory.pending,
      ListMemories: ({ workspaceRoot }) => (workspaceRoot === undefined ? memory.all : memory.forWorkspace(workspaceRoot)),
      ReviewMemory: ({ candidateId, decision, reason, by }) =>
        host.reviewMemory({ candidateId, decision, by: rpcOrigin(by), ...(reason === undefined ? {} : { reason }) }),
      DeleteMemory: ({ memoryId, by }) => host.deleteMemory(memoryId, rpcOrigin(by)),
      GetProjectTrust: ({ workspaceRoot }) => permissions.projectTrust(workspaceRoot),
      TrustProject: ({ workspaceRoot, sha256, by }) => permissions.trustProject(workspaceRoot, sha256, rpcOrigin(by)),
      ListRememberedAnswers: ({ workspaceRoot }) => permissions.listRemembered(workspaceRoot === undefined ? {} : { workspaceRoot }),
      RevokeRememberedAnswer: ({ id, by }) => permissions.revokeRemembered(id, rpcOrigin(by))
    }
  })
)
