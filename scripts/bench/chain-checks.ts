import SqliteDatabase from "better-sqlite3"
import { Either, Schema } from "effect"
import { decodeEvent } from "../../src/domain/decode.js"
import type { AgentEvent } from "../../src/domain/events.js"

/**
 * What a chain run must leave behind, checked from outside the CLI: the replay server saw
 * every step (each tool result came back, none an error), and the SQLite file holds the
 * whole session, every event decodable, gap-free.
 */

const RecordedRequest = Schema.Struct({
  response: Schema.optional(Schema.Number),
  body: Schema.Unknown,
  timing: Schema.Struct({ receivedAt: Schema.Number, closedAt: Schema.optional(Schema.Number) })
})

export const ReplaySummary = Schema.Struct({
  requests: Schema.Array(RecordedRequest),
  served: Schema.Number,
  toolResultsSeen: Schema.Number
})

const AnthropicBody = Schema.Struct({
  messages: Schema.Array(Schema.Struct({ role: Schema.String, content: Schema.Union(Schema.String, Schema.Array(Schema.Unknown)) }))
})

const ToolResultBlock = Schema.Struct({
  type: Schema.Literal("tool_result"),
  tool_use_id: Schema.String,
  is_error: Schema.optional(Schema.Boolean),
  content: Schema.Unknown
})
const isToolResultBlock = Schema.is(ToolResultBlock)

/** Fails unless the server answered every one of the chain's n + 1 requests and got n good tool results back. */
export const checkServer = (summaryJson: unknown, steps: number, marker: string) => {
  const summary = Schema.decodeUnknownSync(ReplaySummary)(summaryJson)
  const problems: Array<string> = []
  if (summary.served !== steps + 1) problems.push(`served ${summary.served} responses, expected ${steps + 1}`)
  if (summary.requests.length !== steps + 1) problems.push(`received ${summary.requests.length} requests, expected ${steps + 1}`)
  if (summary.requests.some((r) => r.response === undefined)) problems.push("some requests were refused")
  if (summary.toolResultsSeen !== steps) problems.push(`saw ${summary.toolResultsSeen} distinct tool results, expected ${steps}`)
  const last = summary.requests[summary.requests.length - 1]
  const body = Schema.decodeUnknownEither(AnthropicBody)(last?.body)
  if (Either.isLeft(body)) {
    problems.push("the last request is not a Messages request")
  } else {
    const results = body.right.messages.flatMap((m) => (typeof m.content === "string" ? [] : m.content.filter(isToolResultBlock)))
    if (results.length !== steps) problems.push(`the last request carries ${results.length} tool results, expected ${steps}`)
    const bad = results.filter((r) => r.is_error === true || !JSON.stringify(r.content).includes(marker))
    if (bad.length > 0) problems.push(`${bad.length} tool results are errors or lack the file's text`)
  }
  if (problems.length > 0) throw new Error(`replay server: ${problems.join("; ")}`)
  return summary
}

/** Seconds the replay server spent on the requests, from each one's arrival to its connection's close. */
export const serverSeconds = (summary: typeof ReplaySummary.Type): number =>
  summary.requests.reduce((total, r) => total + ((r.timing.closedAt ?? r.timing.receivedAt) - r.timing.receivedAt), 0) / 1000

const Row = Schema.Struct({ sequence: Schema.Number, event: Schema.String })

const countOf = (events: ReadonlyArray<AgentEvent>, keep: (event: AgentEvent) => boolean) => events.filter(keep).length

/**
 * Opens the CLI's SQLite file read-only after it exited and fails unless it holds the whole
 * session: sequences 1..last with no gap, one closed turn, and for every step its tool call,
 * its allow decision, its start and its successful result.
 */
export const checkStore = (filename: string, sessionId: string, steps: number, finalText: string) => {
  const db = new SqliteDatabase(filename, { readonly: true, fileMustExist: true })
  let rows: ReadonlyArray<typeof Row.Type>
  try {
    rows = Schema.decodeUnknownSync(Schema.Array(Row))(
      db.prepare("SELECT sequence, event FROM events WHERE session_id = ? ORDER BY sequence").all(sessionId)
    )
  } finally {
    db.close()
  }
  const events: Array<AgentEvent> = []
  for (const row of rows) {
    const decoded = decodeEvent(JSON.parse(row.event))
    if (Either.isLeft(decoded)) throw new Error(`store: event ${row.sequence} does not decode: ${decoded.left.message}`)
    events.push(decoded.right)
  }
  const problems: Array<string> = []
  events.forEach((event, i) => {
    if (event.sequence !== i + 1 && problems.length < 5) problems.push(`sequence ${event.sequence} at position ${i + 1}`)
  })
  const expectedCalls = new Set(Array.from({ length: steps }, (_, i) => `call_chain_${i + 1}`))
  const calls = new Set<string>()
  const completed = new Set<string>()
  let answer = ""
  for (const event of events) {
    if (event.type === "model.tool_call_requested" && event.payload.name === "read_file") calls.add(event.payload.toolCallId)
    if (event.type === "tool.completed" && !event.payload.isError) completed.add(event.payload.toolCallId)
    if (event.type === "model.delta") answer += event.payload.text
  }
  const same = (a: ReadonlySet<string>) => a.size === expectedCalls.size && [...a].every((id) => expectedCalls.has(id))
  if (!same(calls)) problems.push(`${calls.size} read_file calls stored, expected ${steps}`)
  if (!same(completed)) problems.push(`${completed.size} successful tool results stored, expected ${steps}`)
  const allowed = countOf(events, (e) => e.type === "permission.resolved" && e.payload.decision === "allow")
  if (allowed !== steps) problems.push(`${allowed} allow decisions stored, expected ${steps}`)
  const started = countOf(events, (e) => e.type === "tool.started")
  if (started !== steps) problems.push(`${started} tool starts stored, expected ${steps}`)
  const modelSteps = countOf(events, (e) => e.type === "model.completed")
  if (modelSteps !== steps + 1) problems.push(`${modelSteps} model steps stored, expected ${steps + 1}`)
  const turns = countOf(events, (e) => e.type === "turn.started")
  const closed = countOf(events, (e) => e.type === "turn.completed" && e.payload.stopReason === "final")
  if (turns !== 1 || closed !== 1) problems.push(`${turns} turns started and ${closed} closed with a final answer, expected 1 and 1`)
  if (!answer.includes(finalText)) problems.push("the final answer is not stored")
  if (problems.length > 0) throw new Error(`store ${filename}: ${problems.join("; ")}`)
  return { events: events.length }
}
