import { HttpClientError } from "@effect/platform"
import * as Effect from "effect/Effect"
import { messageOf } from "../../domain/cause-message.js"
import { AgentClient, describeClientError } from "../../rpc/client.js"
import { hasTag, type SessionClient } from "./session-client.js"

/** Recorded after the transport's own name (`rpc:cli`): the server sets who it was. */
const BY = "cli"

/** The interactive session's calls through a running server's API (`--server`), or the local host's (no URL: its socket), loaded only then. */
export const remoteSessionClient = (url: string | undefined) =>
  Effect.map(AgentClient, (api): SessionClient => ({
    server: url,
    host: url === undefined ? "local" : "server",
    createSession: (input) => api.CreateSession({ ...input, client: BY }),
    getSession: (sessionId) => api.GetSession({ sessionId }),
    listSessions: api.ListSessions(),
    subscribe: (sessionId, afterSequence) => api.Subscribe({ sessionId, afterSequence }),
    prompt: (input) => api.Prompt({ ...input, client: BY }),
    listCommands: (cwd) => api.ListCommands({ cwd }),
    respondPermission: (sessionId, toolCallId, answer) =>
      api.RespondPermission({ sessionId, toolCallId, answer }).pipe(
        Effect.as(true),
        Effect.catchTag("PermissionNotPending", () => Effect.succeed(false))
      ),
    cancel: (sessionId) => api.Cancel({ sessionId }),
    setMode: (sessionId, mode) => api.SetMode({ sessionId, mode, by: BY }),
    setModel: (sessionId, model) => api.SetModel({ sessionId, model, by: BY }),
    compact: (sessionId) => api.Compact({ sessionId }),
    exportSession: (sessionId) => api.ExportSession({ sessionId }),
    rewind: (sessionId, request) => api.Rewind({ sessionId, ...request }),
    redo: (sessionId, request) => api.Redo({ sessionId, ...request }),
    fork: (sessionId) => api.ForkSession({ sessionId, by: BY }),
    projectTrust: (workspaceRoot) => api.GetProjectTrust({ workspaceRoot }),
    trustProject: (workspaceRoot, sha256) => api.TrustProject({ workspaceRoot, sha256, by: BY }),
    rememberedAnswers: (workspaceRoot) => api.ListRememberedAnswers({ workspaceRoot }),
    revokeAnswer: (id) => api.RevokeRememberedAnswer({ id, by: BY }),
    memories: (workspaceRoot) =>
      Effect.all({ memories: api.ListMemories({ workspaceRoot }), candidates: api.ListMemoryCandidates() }),
    reviewMemory: (candidateId, decision) => api.ReviewMemory({ candidateId, decision, by: BY }),
    // The server's MCP servers run in its process: the API does not list them.
    mcpStatus: undefined,
    isLagged: (error) => hasTag(error, "SubscriberLagged"),
    // A refusal (a status such as 401) is an answer, not a dropped connection.
    isDropped: (error) =>
      hasTag(error, "RpcClientError") &&
      typeof error === "object" &&
      error !== null &&
      "cause" in error &&
      !(error.cause instanceof HttpClientError.ResponseError && error.cause.reason === "StatusCode"),
    describe: (error) => (hasTag(error, "RpcClientError") ? `server ${url}: ${describeClientError(error)}` : messageOf(error))
  }))
