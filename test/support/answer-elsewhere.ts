import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { AgentClient, clientLayer } from "../../src/rpc/client.js"

/**
 * Answers the question the server's one session waits on (its first pending one, asked for
 * `tool`) through the API, allowed once by the user on the web page: another client's answer.
 */
export const allowOnTheWeb = (server: { readonly url: string; readonly token: string }, tool: string): Promise<void> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const client = yield* AgentClient
      const [listed] = yield* client.ListSessions()
      const view = yield* client.GetSession({ sessionId: listed?.sessionId ?? "" })
      const question = view.pendingPermissions[0]
      expect(question?.tool).toBe(tool)
      yield* client.RespondPermission({
        sessionId: view.sessionId,
        toolCallId: question?.toolCallId ?? "",
        answer: { decision: "allow", scope: "once", by: "user", client: "web" }
      })
    }).pipe(Effect.provide(clientLayer({ url: server.url, token: server.token })))
  )
