import type {
  CancelNotification,
  ForkSessionRequest,
  ForkSessionResponse,
  InitializeRequest,
  InitializeResponse,
  ListSessionsRequest,
  ListSessionsResponse,
  LoadSessionRequest,
  LoadSessionResponse,
  NewSessionRequest,
  NewSessionResponse,
  PromptRequest,
  PromptResponse,
  SetSessionModeRequest,
  SetSessionModeResponse
} from "@agentclientprotocol/sdk/unstable"
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk/unstable"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { isAbsolute } from "node:path"
import { AgentHost } from "../host/AgentHost.js"
import { PendingAsks } from "../host/pending-asks.js"
import { workspaceMismatch } from "../host/session-workspace.js"
import { McpHub } from "../services/McpHub.js"
import { Files } from "../services/ToolRouter.js"
import { fromEngineError, internalError, invalidParams, type ProtocolError, sessionNotFound } from "./errors.js"
import { mcpServerConfigs } from "./mcp-servers.js"
import { acpModeOf, isAcpMode, modeState } from "./modes.js"
import { availableCommands } from "./commands.js"
import { OpenSessions } from "./open-sessions.js"
import type { ClientPeer } from "./peer.js"
import { promptText } from "./prompt-content.js"
import { runPrompt } from "./prompt-turn.js"
import type { UpdateBarrier } from "./update-barrier.js"
import { makeTranslator } from "./updates.js"

/** The ACP methods this agent serves, as effects over the host; the SDK wiring calls them. */
export interface AcpAgent {
  readonly initialize: (params: InitializeRequest) => Effect.Effect<InitializeResponse>
  readonly newSession: (params: NewSessionRequest) => Effect.Effect<NewSessionResponse, ProtocolError>
  readonly loadSession: (params: LoadSessionRequest) => Effect.Effect<LoadSessionResponse, ProtocolError>
  readonly forkSession: (params: ForkSessionRequest) => Effect.Effect<ForkSessionResponse, ProtocolError>
  readonly listSessions: (params: ListSessionsRequest) => Effect.Effect<ListSessionsResponse, ProtocolError>
  readonly setMode: (params: SetSessionModeRequest) => Effect.Effect<SetSessionModeResponse, ProtocolError>
  readonly prompt: (params: PromptRequest) => Effect.Effect<PromptResponse, ProtocolError>
  readonly cancel: (params: CancelNotification) => Effect.Effect<void>
  /**
   * Tells the client the session's slash commands (`available_commands_update`), when it has
   * any; sent once session/new, load or fork has been answered. A failure is logged, never sent.
   */
  readonly announceCommands: (sessionId: string) => Effect.Effect<void>
}

export interface AgentInfo {
  readonly name: string
  readonly version: string
}

/**
 * Protocol code only translates: sessions, turns, permissions and files are the host's;
 * this keeps what belongs to the connection (the client's capabilities, which sessions it
 * opened, their modes, which prompts a cancel covers).
 */
export const make = (peer: ClientPeer, barrier: UpdateBarrier, info: AgentInfo) =>
  Effect.gen(function* () {
    const host = yield* AgentHost
    const hub = yield* McpHub
    const pending = yield* PendingAsks
    const files = yield* Files
    const sessions = new OpenSessions()

    const cancelSession = (sessionId: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        const session = sessions.get(sessionId)
        if (session === undefined) return Effect.logDebug(`session/cancel for ${sessionId}, which is not open on this connection`)
        session.cancels += 1
        return host.cancel(sessionId).pipe(Effect.catchAll((error) => Effect.logWarning(`could not cancel the turn of ${sessionId}`, error)))
      })

    const deps = { host, pending, peer, files, barrier, cancel: cancelSession }

    /** The client's MCP servers, for the hub to add to the session's own. */
    const serversOf = (params: NewSessionRequest | LoadSessionRequest | ForkSessionRequest) =>
      Either.match(mcpServerConfigs(params.mcpServers ?? []), { onLeft: invalidParams, onRight: Effect.succeed })

    const checkCwd = (cwd: string) => (isAbsolute(cwd) ? Effect.void : invalidParams(`cwd must be an absolute path, got ${cwd}`))

    /** A session is only opened in its own workspace: the editor's project is what the person chose to let the agent act on. */
    const sameWorkspace = (sessionId: string, sessionCwd: string, clientCwd: string) => {
      const mismatch = workspaceMismatch(sessionId, sessionCwd, clientCwd)
      return mismatch === undefined ? Effect.void : invalidParams(mismatch, { sessionId, sessionCwd, cwd: clientCwd })
    }

    const agent: AcpAgent = {
      initialize: (params) =>
        Effect.sync(() => {
          peer.remember(params.clientCapabilities)
          return {
            // The one version this agent speaks; a client that cannot speak it disconnects.
            protocolVersion: PROTOCOL_VERSION,
            agentCapabilities: {
              loadSession: true,
              promptCapabilities: { image: false, audio: false, embeddedContext: true },
              mcpCapabilities: { http: true, sse: false },
              // `fork` is unstable in ACP (the SDK's /unstable entry point): a client that does not know it ignores it.
              sessionCapabilities: { list: {}, fork: {} }
            },
            authMethods: [],
            agentInfo: { name: info.name, title: info.name, version: info.version }
          }
        }),

      newSession: (params) =>
        Effect.gen(function* () {
          yield* checkCwd(params.cwd)
          const servers = yield* serversOf(params)
          const view = yield* host.createSession({ cwd: params.cwd, client: "acp" }).pipe(Effect.mapError(fromEngineError))
          yield* hub.configureSession(view.sessionId, view.cwd, servers)
          const session = sessions.open(view.sessionId, view.cwd, acpModeOf(view.permissionMode))
          return { sessionId: view.sessionId, modes: modeState(session.mode) }
        }),

      loadSession: (params) =>
        Effect.gen(function* () {
          yield* checkCwd(params.cwd)
          const servers = yield* serversOf(params)
          const view = yield* host.getSession(params.sessionId).pipe(Effect.mapError(fromEngineError))
          // Before anything starts (MCP servers, the replay): the session would act on its own folder, not the editor's.
          yield* sameWorkspace(view.sessionId, view.cwd, params.cwd)
          yield* hub.configureSession(view.sessionId, view.cwd, servers)
          // The whole history, as updates, before the answer (ACP: the client renders it as it comes).
          const translator = makeTranslator({ cwd: view.cwd, replay: true })
          yield* host.exportSession(view.sessionId).pipe(
            Stream.mapError(fromEngineError),
            Stream.runForEach((event) =>
              Effect.forEach(translator.updates(event), (update) => peer.update({ sessionId: view.sessionId, update }), { discard: true }).pipe(
                Effect.catchAll((error) => internalError(`could not replay the session: ${error.message}`))
              )
            )
          )
          // The stored mode: what the session ran under in the process that set it.
          const session = sessions.open(view.sessionId, view.cwd, acpModeOf(view.permissionMode))
          return { modes: modeState(session.mode) }
        }),

      forkSession: (params) =>
        Effect.gen(function* () {
          yield* checkCwd(params.cwd)
          const servers = yield* serversOf(params)
          // A fork works in its source's folder: refused before it is written when that is not the editor's.
          const source = yield* host.getSession(params.sessionId).pipe(Effect.mapError(fromEngineError))
          yield* sameWorkspace(source.sessionId, source.cwd, params.cwd)
          // All of the source's history: the host copies it up to its last completed turn.
          const view = yield* host.forkSession(params.sessionId, { by: "acp" }).pipe(Effect.mapError(fromEngineError))
          yield* hub.configureSession(view.sessionId, view.cwd, servers)
          const session = sessions.open(view.sessionId, view.cwd, acpModeOf(view.permissionMode))
          return { sessionId: view.sessionId, modes: modeState(session.mode) }
        }),

      listSessions: (params) =>
        Effect.gen(function* () {
          // Everything fits one page, so no cursor is ever handed out.
          if (params.cursor !== undefined && params.cursor !== null) return yield* invalidParams(`unknown cursor ${params.cursor}`)
          const listed = yield* host.listSessions.pipe(Effect.mapError(fromEngineError))
          const wanted = params.cwd ?? undefined
          return {
            sessions: listed.flatMap((item) =>
              item.cwd === undefined || (wanted !== undefined && item.cwd !== wanted)
                ? []
                : [{ sessionId: item.sessionId, cwd: item.cwd, updatedAt: item.updatedAt, ...(item.title === undefined ? {} : { title: item.title }) }]
            )
          }
        }),

      setMode: (params) =>
        Effect.gen(function* () {
          const session = sessions.get(params.sessionId)
          if (session === undefined) return yield* sessionNotFound(params.sessionId)
          if (!isAcpMode(params.modeId)) return yield* invalidParams(`unknown mode ${params.modeId}`)
          // Durable at once: a later process that loads the session runs in this mode.
          yield* host.setMode(params.sessionId, params.modeId, "acp").pipe(Effect.mapError(fromEngineError))
          session.mode = params.modeId
          return {}
        }),

      prompt: (params) =>
        Effect.gen(function* () {
          const session = sessions.get(params.sessionId)
          if (session === undefined) return yield* sessionNotFound(params.sessionId)
          const arrival = session.cancels
          const content = promptText(params.prompt)
          if (Either.isLeft(content)) return yield* invalidParams(content.left)
          return yield* runPrompt(deps, session, content.right, arrival)
        }),

      cancel: (params) => cancelSession(params.sessionId),

      announceCommands: (sessionId) =>
        host.listCommands({ sessionId }).pipe(
          Effect.flatMap(({ commands }) => (commands.length === 0 ? Effect.void : peer.update({ sessionId, update: availableCommands(commands) }))),
          Effect.catchAll((error) => Effect.logWarning(`could not tell the client the slash commands of ${sessionId}`, error))
        )
    }
    return agent
  })
