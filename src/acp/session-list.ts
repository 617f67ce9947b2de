import type { ListSessionsRequest, SessionInfo } from "@agentclientprotocol/sdk/unstable"
import * as Either from "effect/Either"
import type { SessionListItem } from "../domain/host.js"

/**
 * The sessions `session/list` shows: a person's own conversations in the asked folder. A
 * subagent's session is its parent's business (ACP has no nesting for it), so it is left
 * out; archived ones are left out unless the request's `archived` filter asks for them
 * (`include`, or `only`). A session with no known folder cannot be opened, so it is left out.
 */
export const listedSessions = (items: ReadonlyArray<SessionListItem>, request: ListSessionsRequest): Either.Either<Array<SessionInfo>, string> => {
  const filter = request.archived ?? "exclude"
  if (filter !== "exclude" && filter !== "include" && filter !== "only") return Either.left(`unknown archived filter ${filter}`)
  const wanted = request.cwd ?? undefined
  return Either.right(
    items.flatMap((item): Array<SessionInfo> => {
      if (item.cwd === undefined || (wanted !== undefined && item.cwd !== wanted)) return []
      if (item.parentSessionId !== undefined) return []
      if ((filter === "exclude" && item.archived) || (filter === "only" && !item.archived)) return []
      return [
        { sessionId: item.sessionId, cwd: item.cwd, updatedAt: item.updatedAt, archived: item.archived, ...(item.title === undefined ? {} : { title: item.title }) }
      ]
    })
  )
}
