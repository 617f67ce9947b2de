import * as JSONSchema from "effect/JSONSchema"
import { AgentEvent, SCHEMA_VERSION } from "./events.js"

/**
 * The schema without the `$id`s effect gives its building blocks (`/schemas/unknown` for each
 * `Schema.Unknown`): repeated, they are one id for several schemas, which validators refuse.
 */
const withoutInnerIds = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(withoutInnerIds)
  if (typeof node !== "object" || node === null) return node
  return Object.fromEntries(Object.entries(node).filter(([key]) => key !== "$id").map(([key, value]) => [key, withoutInnerIds(value)]))
}

/**
 * The event catalogue as a JSON Schema (draft-07), generated from the domain's Schemas: what
 * `custom-agent schema events` prints and the package ships. Its `$id` carries the envelope's
 * `schemaVersion`, which every event repeats; a change to an event's shape that old readers
 * cannot take moves both.
 */
export const eventsJsonSchema = (): Record<string, unknown> => {
  const generated = withoutInnerIds(JSONSchema.make(AgentEvent))
  return {
    ...(typeof generated === "object" && generated !== null ? generated : {}),
    $id: `https://custom-agent.dev/schema/events/v${SCHEMA_VERSION}.json`,
    title: `custom-agent session event, schemaVersion ${SCHEMA_VERSION}`,
    description:
      "One event of a session's append-only log: an envelope (id, schemaVersion, sessionId, turnId?, sequence, timestamp, type) and the payload of its type. A session export is one event per line."
  }
}
