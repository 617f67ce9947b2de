import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { messageOf } from "../domain/cause-message.js"

/** A request id as the RPC client writes it: a decimal integer in a string (the server makes it a bigint). */
const RequestId = Schema.String.pipe(Schema.pattern(/^\d{1,20}$/, { message: () => "a request id is a decimal integer in a string" }))

/**
 * What a client may send, message by message, as far as the RPC server relies on it: it
 * reads `headers` as [name, value] pairs and ids as integers, and a message that breaks
 * either crashes the request (an empty 500) instead of failing it. Payloads are checked
 * later, against each rpc's own schema.
 */
const messages = {
  Request: Schema.Struct({
    _tag: Schema.Literal("Request"),
    id: RequestId,
    tag: Schema.String,
    payload: Schema.Unknown,
    headers: Schema.Array(Schema.Tuple(Schema.String, Schema.String)),
    traceId: Schema.optional(Schema.String),
    spanId: Schema.optional(Schema.String),
    sampled: Schema.optional(Schema.Boolean)
  }),
  Ack: Schema.Struct({ _tag: Schema.Literal("Ack"), requestId: RequestId }),
  Interrupt: Schema.Struct({ _tag: Schema.Literal("Interrupt"), requestId: RequestId }),
  Ping: Schema.Struct({ _tag: Schema.Literal("Ping") }),
  Eof: Schema.Struct({ _tag: Schema.Literal("Eof") })
}

type Check = (u: unknown) => Either.Either<unknown, ParseResult.ParseError>

const checks: ReadonlyMap<string, Check> = new Map<string, Check>([
  ["Request", Schema.decodeUnknownEither(messages.Request)],
  ["Ack", Schema.decodeUnknownEither(messages.Ack)],
  ["Interrupt", Schema.decodeUnknownEither(messages.Interrupt)],
  ["Ping", Schema.decodeUnknownEither(messages.Ping)],
  ["Eof", Schema.decodeUnknownEither(messages.Eof)]
])

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const describeIssues = (error: ParseResult.ParseError): string =>
  ParseResult.ArrayFormatter.formatErrorSync(error)
    .map((issue) => `${issue.path.join(".") || "message"}: ${issue.message}`)
    .join("; ")

/** What is wrong with one decoded NDJSON line as an RPC message, if anything. */
const messageProblem = (value: unknown): string | undefined => {
  if (!isRecord(value)) return "not a JSON object"
  const tag = value["_tag"]
  const check = typeof tag === "string" ? checks.get(tag) : undefined
  if (check === undefined) return `unknown message _tag ${JSON.stringify(tag)} (expected one of ${[...checks.keys()].join(", ")})`
  return Either.match(check(value), { onLeft: describeIssues, onRight: () => undefined })
}

/** The first line of an NDJSON request body that is not a well-formed RPC message, described. */
export const envelopeProblem = (body: string): string | undefined => {
  const lines = body.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? ""
    if (line === "") continue
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch (error) {
      return `line ${i + 1}: not valid JSON (${messageOf(error)})`
    }
    const problem = messageProblem(value)
    if (problem !== undefined) return `line ${i + 1}: ${problem}`
  }
  return undefined
}
