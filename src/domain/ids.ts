import * as Schema from "effect/Schema"

/** Ids are opaque strings with a readable prefix (`ses_`, `turn_`, `evt_`, `call_`). */
export const SessionId = Schema.String.pipe(Schema.minLength(1))
export type SessionId = string

export const TurnId = Schema.String.pipe(Schema.minLength(1))
export type TurnId = string

export const EventId = Schema.String.pipe(Schema.minLength(1))
export type EventId = string

export const ToolCallId = Schema.String.pipe(Schema.minLength(1))
export type ToolCallId = string
