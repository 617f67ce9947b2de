import * as Schema from "effect/Schema"
import type { InvalidSessionId } from "./ids.js"
import { ModelErrorCode } from "./model.js"

/** Why a stored or received event could not be read. */
export const DecodeProblem = Schema.Literal(
  "malformed_json",
  "not_an_event",
  "unknown_type",
  "unsupported_schema_version",
  "invalid_payload",
  "truncated_line"
)
export type DecodeProblem = typeof DecodeProblem.Type

export class EventDecodeError extends Schema.TaggedError<EventDecodeError>()("EventDecodeError", {
  problem: DecodeProblem,
  message: Schema.String,
  eventType: Schema.optional(Schema.String),
  /** 1-based line number when the event came from a JSONL file. */
  line: Schema.optional(Schema.Finite),
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

/** An append whose sequence is not exactly the next one of its session. */
export class SequenceConflict extends Schema.TaggedError<SequenceConflict>()("SequenceConflict", {
  sessionId: Schema.String,
  expected: Schema.Finite,
  actual: Schema.Finite
}) {
  override get message() {
    return `session ${this.sessionId}: expected sequence ${this.expected}, got ${this.actual}`
  }
}

/** A data directory the agent will not use (another user's, one others can write): nothing was read from it or sent to it. */
export class DataDirRefused extends Schema.TaggedError<DataDirRefused>()("DataDirRefused", {
  dir: Schema.String,
  problem: Schema.String,
  /** What the person can do about it. */
  remedy: Schema.String,
  /** The failure underneath, when the folder could not be examined or made. */
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return `the data directory ${this.dir} ${this.problem}: ${this.remedy}`
  }
}

/** The store could not do its job (I/O, a locked or corrupt database, a full disk). */
export class StoreFailure extends Schema.TaggedError<StoreFailure>()("StoreFailure", {
  operation: Schema.String,
  reason: Schema.String,
  /** The failure underneath (a driver's or the file system's error), kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return `event store ${this.operation} failed: ${this.reason}`
  }
}

/** `InvalidSessionId`: every store refuses an id that breaks the one rule (`ids.ts`) before touching storage. */
export type EventStoreError = SequenceConflict | StoreFailure | EventDecodeError | InvalidSessionId

export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  sessionId: Schema.String
}) {
  override get message() {
    return `no session ${this.sessionId}`
  }
}

/** A second turn was asked for while one is running on the same session. */
export class TurnInProgress extends Schema.TaggedError<TurnInProgress>()("TurnInProgress", {
  sessionId: Schema.String,
  /** The turn runs in another process sharing the store (its turn lease is live there). */
  elsewhere: Schema.optional(Schema.Boolean)
}) {
  override get message() {
    return this.elsewhere === true
      ? `session ${this.sessionId} is running a turn in another process on the same data directory; send the message through that process (run --server URL for a serve) or again once its turn ends`
      : `session ${this.sessionId} already has a running turn`
  }
}

/** A model request failed; `code` says how, `message` says it to a person. */
export class ModelError extends Schema.TaggedError<ModelError>()("ModelError", {
  code: ModelErrorCode,
  message: Schema.String,
  /** HTTP status, when the provider answered with one. */
  status: Schema.optional(Schema.Finite),
  /** The failure underneath (a socket's error, say), when there was one. */
  cause: Schema.optional(Schema.Defect)
}) {}

export type EngineError = SessionNotFound | TurnInProgress | EventStoreError
