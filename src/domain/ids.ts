import * as Schema from "effect/Schema"

/**
 * The one rule for a session id, wherever one comes in (RPC payloads, CLI arguments, imported
 * logs, every store's append, replay and head): 1 to 200 letters, digits, `_`, `-` or `.`,
 * not starting with `.` or `-`. It is the rule the JSONL store always had for its file names,
 * so no id a store could hold before becomes invalid, an id is always a safe file name (no
 * `/`, no `..`, no hidden file) and never reads as a command-line option. Generated ids
 * (`ses_<time><random>`) and cluster entity ids (the session's id) follow it.
 */
const SESSION_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}$/

export const sessionIdRule = 'a session id is 1 to 200 letters, digits, "_", "-" or ".", not starting with "." or "-"'

export const isSessionId = (id: string): boolean => SESSION_ID.test(id)

/** An id as a message shows it: a hostile one may be long (cut to 80 characters) or hold control characters (escaped). */
const shown = (id: string) => (id.length > 80 ? `${id.slice(0, 80)}…` : id)

/** A session id that breaks the rule; `sessionId` is the id given, as `shown` (cut to 80 characters). */
export class InvalidSessionId extends Schema.TaggedError<InvalidSessionId>()("InvalidSessionId", {
  sessionId: Schema.String
}) {
  override get message() {
    return `invalid session id ${JSON.stringify(this.sessionId)}: ${sessionIdRule}`
  }
}

/** The rule as a check: the error for an id that breaks it, else undefined (plain, for stores' hot paths). */
export const sessionIdProblem = (id: string): InvalidSessionId | undefined =>
  isSessionId(id) ? undefined : new InvalidSessionId({ sessionId: shown(id) })

/** The rule as a Schema, for payloads: decoding an id that breaks it fails, naming the rule. */
export const SessionId = Schema.String.pipe(
  Schema.filter((id) => isSessionId(id) || `${sessionIdRule}; got ${JSON.stringify(shown(id))}`, { identifier: "SessionId" })
)
export type SessionId = string

/** Ids are opaque strings with a readable prefix (`turn_`, `evt_`, `call_`). */
export const TurnId = Schema.String.pipe(Schema.minLength(1))
export type TurnId = string

export const EventId = Schema.String.pipe(Schema.minLength(1))
export type EventId = string

export const ToolCallId = Schema.String.pipe(Schema.minLength(1))
export type ToolCallId = string
