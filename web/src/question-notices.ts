import type { SessionListItem } from "../../src/domain/host.js"

/**
 * The sessions where a permission question arrived between two versions of the list: more
 * questions wait than before. The first list the page gets tells of no arrival (what already
 * waits is on screen when the page opens).
 */
export const questionsArrived = (
  before: ReadonlyArray<SessionListItem> | undefined,
  after: ReadonlyArray<SessionListItem>
): ReadonlyArray<SessionListItem> => {
  if (before === undefined) return []
  const had = new Map(before.map((session) => [session.sessionId, session.waitingQuestions ?? 0]))
  return after.filter((session) => (session.waitingQuestions ?? 0) > (had.get(session.sessionId) ?? 0))
}
