import type {
  ArchiveSessionRequest,
  CancelNotification,
  CloseSessionRequest,
  DeleteSessionRequest,
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
  ResumeSessionRequest,
  ResumeSessionResponse,
  SetSessionConfigOptionRequest,
  SetSessionConfigOptionResponse,
  SetSessionModeRequest,
  SessionUpdate,
  SetSessionModeResponse,
  UnarchiveSessionRequest
} from "@agentclientprotocol/sdk/unstable"
import { PROTOCOL_VERSION } from "@agentclientprotocol/sdk/unstable"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { isAbsolute } from "node:path"
import type { SessionView } from "../domain/host.js"
import { modelChoices } from "../domain/model-choices.js"
import { AgentHost } from "../host/AgentHost.js"
import { PendingAsks } from "../host/pending-asks.js"
import { workspaceMismatch } from "../host/session-workspace.js"
import { McpHub } from "../services/McpHub.js"
import { ModelGateway } from "../services/ModelGateway.js"
import { Files } from "../services/ToolRouter.js"
import { configChange, configOptions } from "./config-options.js"
import { fromEngineError, internalError, invalidParams, type ProtocolError, sessionNotFound, turnRunning } from "./errors.js"
import { mcpServerConfigs } from "./mcp-servers.js"
import { acpModeOf, isAcpMode, modeState } from "./modes.js"
import { availableCommands } from "./commands.js"
import { type OpenSession, OpenSessions } from "./open-sessions.js"
import type { ClientPeer } from "./peer.js"
import { promptContent } from "./prompt-content.js"
import { runPrompt } from "./prompt-turn.js"
import { listedSessions } from "./session-list.js"
import type { UpdateBarrier } from "./update-barrier.js"
import { makeTranslator } from "./updates.js"
import { addUsage, emptyTally, usageUpdate } from "./usage.js"

/** The ACP methods this agent serves, as effects over the host; the SDK wiring calls them. */
export interface AcpAgent {
  readonly initialize: (params: InitializeRequest) => Effect.Effect<InitializeResponse>
  readonly newSession: (params: NewSessionRequest) => Effect.Effect<NewSessionResponse, ProtocolError>
  readonly loadSession: (params: LoadSessionRequest) => Effect.Effect<LoadSessionResponse, ProtocolError>
  readonly forkSession: (params: ForkSessionRequest) => Effect.Effect<ForkSessionResponse, ProtocolError>
  readonly resumeSession: (params: ResumeSessionRequest) => Effect.Effect<ResumeSessionResponse, ProtocolError>
  readonly closeSession: (params: CloseSessionRequest) => Effect.Effect<void, ProtocolError>
  readonly deleteSession: (params: DeleteSessionRequest) => Effect.Effect<void, ProtocolError>
  readonly archiveSession: (params: ArchiveSessionRequest | UnarchiveSessionRequest, archived: boolean) => Effect.Effect<void, ProtocolError>
  readonly listSessions: (params: ListSessionsRequest) => Effect.Effect<ListSessionsResponse, ProtocolError>
  readonly setMode: (params: SetSessionModeRequest) => Effect.Effect<SetSessionModeResponse, ProtocolError>
  readonly setConfigOption: (params: SetSessionConfigOptionRequest) => Effect.Effect<SetSessionConfigOptionResponse, ProtocolError>
  readonly prompt: (params: PromptRequest) => Effect.Effect<PromptResponse, ProtocolError>
  readonly cancel: (params: CancelNotification) => Effect.Effect<void>
  /**
   * Tells the client the session's slash commands (`available_commands_update`), when it has
   * some; sent once session/new, load or fork has been answered. A failure is logged, never sent.
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
    const gateway = yield* ModelGateway
    const sessions = new OpenSessions()

    /**
     * Opens the session on this connection, with the models its model option offers: those
     * the host knows (as the web page's picker offers them) and the session's own.
     */
    const openView = (view: SessionView): Effect.Effect<OpenSession> =>
      Effect.gen(function* () {
        const model = view.model ?? gateway.info.id
        const others = yield* host.listSessions.pipe(
          Effect.map((items) => items.map((item) => item.model)),
          // Only suggestions: without the listing, the session's own and the known ones remain.
          Effect.tapError((error) => Effect.logWarning("could not list the models other sessions use", error)),
          Effect.orElseSucceed((): ReadonlyArray<string | undefined> => [])
        )
        return sessions.open({ sessionId: view.sessionId, cwd: view.cwd, mode: acpModeOf(view.permissionMode), model, models: modelChoices(model, others) })
      })

    /** The session's state as every answer that opens one carries it: its modes (the legacy API) and its options. */
    const opened = (session: OpenSession) => ({ modes: modeState(session.mode), configOptions: configOptions(session) })

    /** Stops following the session on this connection; a prompt of its still in progress is cancelled (ACP's close). */
    const closeOpen = (sessionId: string): Effect.Effect<void> =>
      Effect.suspend(() => {
        const session = sessions.get(sessionId)
        if (session === undefined) return Effect.void
        sessions.close(sessionId)
        // Only this connection's own prompts: a turn another client started goes on.
        return session.active > 0 ? cancelSession(sessionId, session) : hub.release(sessionId)
      })

    const cancelSession = (sessionId: string, known?: OpenSession): Effect.Effect<void> =>
      Effect.suspend(() => {
        const session = known ?? sessions.get(sessionId)
        if (session === undefined) return Effect.logDebug(`session/cancel for ${sessionId}, which is not open on this connection`)
        session.cancels += 1
        return host.cancel(sessionId).pipe(Effect.catchAll((error) => Effect.logWarning(`could not cancel the turn of ${sessionId}`, error)))
      })

    const deps = { host, pending, peer, files, barrier, cancel: (sessionId: string) => cancelSession(sessionId) }

    /** The client's MCP servers, for the hub to add to the session's own. */
    const serversOf = (params: NewSessionRequest | LoadSessionRequest | ForkSessionRequest | ResumeSessionRequest) =>
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
              // resume, close and delete are stable since ACP 1.7; `fork` and `archive` are unstable (the
              // SDK's /unstable entry point): a client that does not know them ignores them.
              sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {}, archive: {} }
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
          const session = yield* openView(view)
          return { sessionId: view.sessionId, ...opened(session) }
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
          const send = (updates: ReadonlyArray<SessionUpdate>) =>
            Effect.forEach(updates, (update) => peer.update({ sessionId: view.sessionId, update }), { discard: true }).pipe(
              Effect.catchAll((error) => internalError(`could not replay the session: ${error.message}`))
            )
          const usage = yield* host.exportSession(view.sessionId).pipe(
            Stream.mapError(fromEngineError),
            Stream.runFoldEffect(emptyTally, (tally, event) => Effect.as(send(translator.updates(event)), addUsage(tally, event)))
          )
          // What the session has spent, once, after its history (not one per request of the replay).
          const spent = usageUpdate(usage)
          if (spent !== undefined) yield* send([spent])
          // The stored mode and model: what the session ran under in the process that set them.
          const session = yield* openView(view)
          session.usage = usage
          return opened(session)
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
          const session = yield* openView(view)
          return { sessionId: view.sessionId, ...opened(session) }
        }),

      resumeSession: (params) =>
        Effect.gen(function* () {
          yield* checkCwd(params.cwd)
          const servers = yield* serversOf(params)
          const view = yield* host.getSession(params.sessionId).pipe(Effect.mapError(fromEngineError))
          yield* sameWorkspace(view.sessionId, view.cwd, params.cwd)
          yield* hub.configureSession(view.sessionId, view.cwd, servers)
          // No history: the client has it (or does not want it); the next prompt goes on from the log.
          return opened(yield* openView(view))
        }),

      closeSession: (params) =>
        sessions.get(params.sessionId) === undefined ? Effect.fail(sessionNotFound(params.sessionId)) : closeOpen(params.sessionId),

      deleteSession: (params) =>
        Effect.gen(function* () {
          const deleted = yield* host.deleteSession(params.sessionId, "acp").pipe(
            Effect.mapError((error) =>
              error._tag === "TurnInProgress"
                ? turnRunning(error, "deleted")
                : error._tag === "MemoryStoreFailure"
                  ? internalError(`could not delete the memory candidates of ${params.sessionId}: ${error.message}`)
                  : fromEngineError(error)
            )
          )
          for (const sessionId of deleted) sessions.close(sessionId)
        }),

      archiveSession: (params, archived) =>
        Effect.gen(function* () {
          // ACP: archiving a session this connection follows first closes it here.
          if (archived) yield* closeOpen(params.sessionId)
          yield* host.archiveSession(params.sessionId, archived, "acp").pipe(Effect.mapError(fromEngineError))
        }),

      listSessions: (params) =>
        Effect.gen(function* () {
          // Everything fits one page, so no cursor is ever handed out.
          if (params.cursor !== undefined && params.cursor !== null) return yield* invalidParams(`unknown cursor ${params.cursor}`)
          const listed = yield* host.listSessions.pipe(Effect.mapError(fromEngineError))
          return yield* Either.match(listedSessions(listed, params), { onLeft: invalidParams, onRight: (shown) => Effect.succeed({ sessions: shown }) })
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

      setConfigOption: (params) =>
        Effect.gen(function* () {
          const session = sessions.get(params.sessionId)
          if (session === undefined) return yield* sessionNotFound(params.sessionId)
          const change = configChange(session, params)
          if (Either.isLeft(change)) return yield* invalidParams(change.left)
          // Durable at once, like the mode: the session's next turn asks the model, whichever client prompts it.
          if (change.right._tag === "Mode") {
            yield* host.setMode(params.sessionId, change.right.mode, "acp").pipe(Effect.mapError(fromEngineError))
            session.mode = change.right.mode
          } else {
            yield* host.setModel(params.sessionId, { model: change.right.model, by: "acp" }).pipe(Effect.mapError(fromEngineError))
            session.model = change.right.model
          }
          return { configOptions: configOptions(session) }
        }),

      prompt: (params) =>
        Effect.gen(function* () {
          const session = sessions.get(params.sessionId)
          if (session === undefined) return yield* sessionNotFound(params.sessionId)
          const arrival = session.cancels
          const content = promptContent(params.prompt)
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
