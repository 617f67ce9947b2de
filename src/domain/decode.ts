import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { EventDecodeError } from "./errors.js"
import { type AgentEvent, type EventType, eventSchemas, isEventType, SCHEMA_VERSION } from "./events.js"
import { messageOf } from "./cause-message.js"

type MemberDecoder = (u: unknown) => Either.Either<AgentEvent, ParseResult.ParseError>

/**
 * One decoder per event type: once `type` is known, decoding its member alone is about twice
 * as fast as trying the whole union (it matters on store replay), with the same result.
 */
const memberDecoders: { readonly [T in EventType]: MemberDecoder } = {
  "session.created": Schema.decodeUnknownEither(eventSchemas["session.created"]),
  "session.mode_changed": Schema.decodeUnknownEither(eventSchemas["session.mode_changed"]),
  "session.model_changed": Schema.decodeUnknownEither(eventSchemas["session.model_changed"]),
  "session.renamed": Schema.decodeUnknownEither(eventSchemas["session.renamed"]),
  "session.archived": Schema.decodeUnknownEither(eventSchemas["session.archived"]),
  "session.forked": Schema.decodeUnknownEither(eventSchemas["session.forked"]),
  "turn.started": Schema.decodeUnknownEither(eventSchemas["turn.started"]),
  "user.message": Schema.decodeUnknownEither(eventSchemas["user.message"]),
  "model.delta": Schema.decodeUnknownEither(eventSchemas["model.delta"]),
  "model.thinking_delta": Schema.decodeUnknownEither(eventSchemas["model.thinking_delta"]),
  "model.tool_call_requested": Schema.decodeUnknownEither(eventSchemas["model.tool_call_requested"]),
  "model.completed": Schema.decodeUnknownEither(eventSchemas["model.completed"]),
  "model.failed": Schema.decodeUnknownEither(eventSchemas["model.failed"]),
  "permission.requested": Schema.decodeUnknownEither(eventSchemas["permission.requested"]),
  "permission.resolved": Schema.decodeUnknownEither(eventSchemas["permission.resolved"]),
  "plan.proposed": Schema.decodeUnknownEither(eventSchemas["plan.proposed"]),
  "plan.resolved": Schema.decodeUnknownEither(eventSchemas["plan.resolved"]),
  "tool.started": Schema.decodeUnknownEither(eventSchemas["tool.started"]),
  "tool.output": Schema.decodeUnknownEither(eventSchemas["tool.output"]),
  "tool.completed": Schema.decodeUnknownEither(eventSchemas["tool.completed"]),
  "inbox.updated": Schema.decodeUnknownEither(eventSchemas["inbox.updated"]),
  "context.source": Schema.decodeUnknownEither(eventSchemas["context.source"]),
  "context.built": Schema.decodeUnknownEither(eventSchemas["context.built"]),
  "context.compacted": Schema.decodeUnknownEither(eventSchemas["context.compacted"]),
  "task.updated": Schema.decodeUnknownEither(eventSchemas["task.updated"]),
  "memory.candidate_proposed": Schema.decodeUnknownEither(eventSchemas["memory.candidate_proposed"]),
  "memory.approved": Schema.decodeUnknownEither(eventSchemas["memory.approved"]),
  "memory.rejected": Schema.decodeUnknownEither(eventSchemas["memory.rejected"]),
  "memory.deleted": Schema.decodeUnknownEither(eventSchemas["memory.deleted"]),
  "skill.loaded": Schema.decodeUnknownEither(eventSchemas["skill.loaded"]),
  "mcp.notice": Schema.decodeUnknownEither(eventSchemas["mcp.notice"]),
  "permission.project_rules": Schema.decodeUnknownEither(eventSchemas["permission.project_rules"]),
  "hook.ran": Schema.decodeUnknownEither(eventSchemas["hook.ran"]),
  "checkpoint.recorded": Schema.decodeUnknownEither(eventSchemas["checkpoint.recorded"]),
  "checkpoint.restored": Schema.decodeUnknownEither(eventSchemas["checkpoint.restored"]),
  "conversation.rewound": Schema.decodeUnknownEither(eventSchemas["conversation.rewound"]),
  "output.structured": Schema.decodeUnknownEither(eventSchemas["output.structured"]),
  "subagent.started": Schema.decodeUnknownEither(eventSchemas["subagent.started"]),
  "subagent.completed": Schema.decodeUnknownEither(eventSchemas["subagent.completed"]),
  "turn.completed": Schema.decodeUnknownEither(eventSchemas["turn.completed"])
}

/**
 * The union reports a mismatch of every other member's `type` literal too; since `type` is
 * known to be valid here, only the matching member's issues are worth a person's time.
 * Alternatives at one path (a literal union) are merged into one "Expected a | b" line.
 */
const describeIssues = (error: ParseResult.ParseError): string => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    if (issue.path.length === 1 && issue.path[0] === "type") continue
    const path = issue.path.join(".") || "event"
    const messages = byPath.get(path) ?? []
    if (!messages.includes(issue.message)) messages.push(issue.message)
    byPath.set(path, messages)
  }
  return [...byPath].map(([path, messages]) => `${path}: ${mergeAlternatives(messages)}`).join("; ")
}

const expectedActual = /^Expected (.*), actual (.*)$/s

const mergeAlternatives = (messages: ReadonlyArray<string>): string => {
  const parts = messages.map((m) => expectedActual.exec(m))
  const actual = parts[0]?.[2]
  if (parts.length > 1 && parts.every((p) => p !== null && p[2] === actual)) {
    return `Expected ${parts.map((p) => p?.[1]).join(" | ")}, actual ${actual}`
  }
  return messages.join("; ")
}

const isRecord = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * Decodes one event at a trust boundary (store read, import, RPC, ACP). Checks the envelope
 * first so the error names the actual problem: an unknown type, a schemaVersion this build
 * does not read, or the field that is wrong in a known event.
 */
export const decodeEvent = (u: unknown, line?: number): Either.Either<AgentEvent, EventDecodeError> => {
  const at = line === undefined ? {} : { line }
  const where = line === undefined ? "" : `line ${line}: `
  if (!isRecord(u)) {
    return Either.left(
      new EventDecodeError({ problem: "not_an_event", message: `${where}not an event object`, ...at })
    )
  }
  const type = u["type"]
  if (typeof type !== "string") {
    return Either.left(
      new EventDecodeError({ problem: "not_an_event", message: `${where}event has no string "type"`, ...at })
    )
  }
  if (u["schemaVersion"] !== SCHEMA_VERSION) {
    return Either.left(
      new EventDecodeError({
        problem: "unsupported_schema_version",
        message: `${where}event "${type}" has schemaVersion ${JSON.stringify(u["schemaVersion"])}; this build reads ${SCHEMA_VERSION}`,
        eventType: type,
        ...at
      })
    )
  }
  if (!isEventType(type)) {
    return Either.left(
      new EventDecodeError({ problem: "unknown_type", message: `${where}unknown event type "${type}"`, eventType: type, ...at })
    )
  }
  return Either.mapLeft(memberDecoders[type](u), (error) =>
    new EventDecodeError({
      problem: "invalid_payload",
      message: `${where}malformed "${type}" event: ${describeIssues(error)}`,
      eventType: type,
      ...at
    })
  )
}

/** Decodes one line of JSONL (a stored or imported event). */
export const decodeEventJson = (text: string, line?: number): Either.Either<AgentEvent, EventDecodeError> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    const where = line === undefined ? "" : `line ${line}: `
    const reason = messageOf(error)
    return Either.left(
      new EventDecodeError({
        problem: "malformed_json",
        message: `${where}not valid JSON (${reason})`,
        ...(line === undefined ? {} : { line })
      })
    )
  }
  return decodeEvent(parsed, line)
}
