import * as Schema from "effect/Schema"

/** The longest title a client may give a session. */
export const TITLE_MAX_LENGTH = 200

/**
 * A title a client gives a session: not blank, at most TITLE_MAX_LENGTH characters once
 * trimmed. A filter, not a transformation, so a client may send what the person typed (spaces
 * around it included); the host stores it trimmed.
 */
export const SessionTitle = Schema.String.pipe(
  Schema.filter((title) => {
    const trimmed = title.trim()
    if (trimmed.length === 0) return "a title must not be blank"
    return trimmed.length <= TITLE_MAX_LENGTH || `a title has at most ${TITLE_MAX_LENGTH} characters`
  })
)

/** A session's title from a prompt: the prompt on one line, cut at 60 characters. */
export const titleOf = (text: string): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > 60 ? `${line.slice(0, 59)}…` : line
}
