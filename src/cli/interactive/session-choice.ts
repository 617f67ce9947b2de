import * as Effect from "effect/Effect"
import { resolve } from "node:path"
import type { SessionListItem } from "../../domain/host.js"
import { sessionIdProblem } from "../../domain/ids.js"
import { CliError, USAGE_EXIT_CODE } from "../errors.js"
import type { SessionClient } from "./session-client.js"

/** A session a person resumes: top-level (a subagent's session is its parent's) and not archived. */
const resumable = (item: SessionListItem) => item.parentSessionId === undefined && !item.archived

/** This workspace's most recently active session (the listing is newest first), for `--continue`. */
export const latestHere = (items: ReadonlyArray<SessionListItem>, cwd: string): string | undefined =>
  items.find((item) => resumable(item) && item.cwd !== undefined && resolve(item.cwd) === resolve(cwd))?.sessionId

export type Match = { readonly _tag: "One"; readonly sessionId: string } | { readonly _tag: "None" } | { readonly _tag: "Many"; readonly sessionIds: ReadonlyArray<string> }

/** The session `typed` names: its whole id, else the only id that starts with it (with or without `ses_`). */
export const matchSession = (items: ReadonlyArray<SessionListItem>, typed: string): Match => {
  const exact = items.find((item) => item.sessionId === typed)
  if (exact !== undefined) return { _tag: "One", sessionId: exact.sessionId }
  const starts = items.filter((item) => item.sessionId.startsWith(typed) || item.sessionId.replace(/^ses_/, "").startsWith(typed))
  const [first] = starts
  if (first === undefined) return { _tag: "None" }
  return starts.length === 1 ? { _tag: "One", sessionId: first.sessionId } : { _tag: "Many", sessionIds: starts.map((item) => item.sessionId) }
}

/** `--session ID` / `-r ID`: the one session it names, or a clear refusal before the screen opens. */
export const resolveSession = (client: SessionClient, typed: string) =>
  Effect.gen(function* () {
    const invalid = sessionIdProblem(typed)
    if (invalid !== undefined) return yield* new CliError({ message: `--session: ${invalid.message}`, exitCode: USAGE_EXIT_CODE })
    const match = matchSession(yield* client.listSessions, typed)
    switch (match._tag) {
      case "One":
        return match.sessionId
      case "None":
        return yield* new CliError({ message: `no session ${typed} (see: custom-agent sessions list)` })
      case "Many":
        return yield* new CliError({
          message: `${typed} is the start of ${match.sessionIds.length} sessions (${match.sessionIds.slice(0, 5).join(", ")}${match.sessionIds.length > 5 ? ", ..." : ""}): give more of it`
        })
    }
  })
