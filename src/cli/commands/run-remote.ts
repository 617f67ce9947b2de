import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { HttpClientError } from "@effect/platform"
import type { RpcClientError } from "@effect/rpc"
import type { EngineError } from "../../domain/errors.js"
import type { AnswerNotOffered, SubscriberLagged } from "../../domain/host.js"
import type { PermissionStoreError, ProjectTrustError } from "../../services/PermissionEngine.js"
import type { McpError } from "../../services/McpHub.js"
import { AgentClient } from "../../rpc/client.js"
import { runTurn } from "../run-turn.js"
import type { TurnClient } from "../turn-client.js"
import { compactRequested, needsSession, reportCompaction, type RunArgs } from "../turn-output.js"

/**
 * `run --server`: the same turn as a local run, through a running server's API; also a run
 * that joined the data directory's local host. `unanswered`: what a question nobody here
 * answers gets (a server's other clients may answer; a joined host keeps `run`'s rule of
 * denying it off a terminal, as in its own process).
 */
export const runRemote = (args: RunArgs, unanswered: "deny" | "wait" = "wait") =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    if (compactRequested(args.prompt)) {
      if (Option.isNone(args.session)) return yield* needsSession
      const result = yield* client.Compact({ sessionId: args.session.value })
      return yield* reportCompaction(result.compacted, result.summary)
    }
    const remote: TurnClient<EngineError | McpError | SubscriberLagged | AnswerNotOffered | PermissionStoreError | ProjectTrustError | RpcClientError.RpcClientError> = {
      createSession: (input) => client.CreateSession(input),
      getSession: (sessionId) => client.GetSession({ sessionId }),
      subscribe: (sessionId, afterSequence) => client.Subscribe({ sessionId, afterSequence }),
      prompt: (request) => client.Prompt(request),
      respondPermission: (sessionId, toolCallId, answer) =>
        client.RespondPermission({ sessionId, toolCallId, answer }).pipe(
          Effect.as(true),
          Effect.catchTag("PermissionNotPending", () => Effect.succeed(false))
        ),
      cancel: (sessionId) => client.Cancel({ sessionId }),
      isLagged: (error) => error._tag === "SubscriberLagged",
      // A refusal (a status such as 401) is an answer, not a dropped connection.
      isDropped: (error) =>
        error._tag === "RpcClientError" && !(error.cause instanceof HttpClientError.ResponseError && error.cause.reason === "StatusCode"),
      unanswered,
      // The server's trust: its host loads the workspace's configuration.
      trust: {
        projectTrust: (workspaceRoot) => client.GetProjectTrust({ workspaceRoot }),
        trustProject: (workspaceRoot, sha256, by) => client.TrustProject({ workspaceRoot, sha256, by })
      }
    }
    // The server picks a new session's model; what it picked is the session's (SessionView.model).
    return yield* runTurn(remote, args, { chosen: false, reason: "it is the server's default model" })
  })
