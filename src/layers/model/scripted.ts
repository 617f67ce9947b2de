import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { ModelError } from "../../domain/errors.js"
import { ModelErrorCode, type ModelInfo, type ModelRequest, ModelStopReason, type ModelStreamEvent, Usage } from "../../domain/model.js"
import { ModelGateway, type ModelGatewayShape } from "../../services/ModelGateway.js"
import { messageOf } from "../../domain/cause-message.js"
import { CHARS_PER_TOKEN } from "../../domain/tokens.js"
import { checkContextWindow } from "./preflight.js"

/**
 * The scripted model: a deterministic provider for tests, demos and offline runs. The
 * script format is documented in the README ("Script format"); keep the two in step.
 */
const Chunk = Schema.Union(
  Schema.Struct({ text: Schema.String }),
  Schema.Struct({ thinking: Schema.String, signature: Schema.optional(Schema.String) }),
  Schema.Struct({
    toolCall: Schema.Struct({
      name: Schema.String,
      input: Schema.optionalWith(Schema.Unknown, { default: () => ({}) }),
      id: Schema.optional(Schema.String)
    })
  })
)
type Chunk = typeof Chunk.Type

const ScriptedError = Schema.Struct({
  code: Schema.optionalWith(ModelErrorCode, { default: () => "scripted" }),
  message: Schema.optional(Schema.String)
})

const Response = Schema.Struct({
  chunks: Schema.optionalWith(Schema.Array(Chunk), { default: () => [] }),
  /** Milliseconds to wait before each chunk. */
  delayMs: Schema.optionalWith(Schema.NonNegativeInt, { default: () => 0 }),
  /** Fail after this many chunks (0: before the first). */
  failAfter: Schema.optional(Schema.NonNegativeInt),
  error: Schema.optional(ScriptedError),
  /** Default: `tool_calls` when the response has tool calls, else `final`. */
  stopReason: Schema.optional(ModelStopReason),
  usage: Schema.optional(Usage)
})
type Response = typeof Response.Type

/** A bare string is a text answer streamed word by word. */
const ResponseEntry = Schema.Union(Schema.String, Response)

export const Script = Schema.Struct({
  responses: Schema.Array(ResponseEntry),
  /** Answers to compaction requests (the engine summarizing older turns), in order. */
  summaries: Schema.optional(Schema.Array(Schema.String)),
  /**
   * Each subagent's responses, by agent name: a child session plays the list its delegation
   * prompt names in `prompts` (the exact prompt), else `responses`, from its first.
   */
  agents: Schema.optional(
    Schema.Record({
      key: Schema.String,
      value: Schema.Struct({
        responses: Schema.optional(Schema.Array(ResponseEntry)),
        prompts: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(ResponseEntry) }))
      }).pipe(Schema.filter((agent) => agent.responses !== undefined || agent.prompts !== undefined || "an agent needs responses, prompts or both"))
    })
  ),
  contextWindow: Schema.optional(Schema.Int.pipe(Schema.positive())),
  maxOutputTokens: Schema.optional(Schema.Int.pipe(Schema.positive()))
})
/** A script as written (defaults may be left out); `make` validates it. */
export type Script = typeof Script.Encoded
type ValidScript = typeof Script.Type

export class ScriptError extends Schema.TaggedError<ScriptError>()("ScriptError", {
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

const decodeScript = Schema.decodeUnknownEither(Script)

const validate = (value: unknown, source: string): Effect.Effect<ValidScript, ScriptError> =>
  decodeScript(value).pipe(
    Effect.mapError((error) =>
      new ScriptError({
        message: `${source}: not a valid script: ${ParseResult.ArrayFormatter.formatErrorSync(error)
          .map((issue) => `${issue.path.join(".") || "script"}: ${issue.message}`)
          .join("; ")}`
      })
    )
  )

/** Parses and validates a script file's text; `source` names the file in the error. */
export const parseScript = (json: string, source: string): Effect.Effect<Script, ScriptError> =>
  Effect.try({
    try: (): unknown => JSON.parse(json),
    catch: (error) => new ScriptError({ message: `${source}: not valid JSON (${messageOf(error)})`, cause: error })
  }).pipe(Effect.flatMap((value) => validate(value, source)), Effect.map((script) => Schema.encodeSync(Script)(script)))

const words = (text: string): ReadonlyArray<Chunk> =>
  (text.match(/\s*\S+\s*/g) ?? [text]).map((word) => ({ text: word }))

const normalize = (entry: typeof ResponseEntry.Type): Response =>
  typeof entry === "string" ? { chunks: words(entry), delayMs: 0 } : entry

/** The text of the request's first user message: a child session's delegation prompt. */
const firstUserText = (request: ModelRequest): string => {
  const message = request.messages.find((candidate) => candidate.role === "user")
  const part = message?.content.find((candidate) => candidate._tag === "text")
  return part?._tag === "text" ? part.text : ""
}

const lastUserText = (request: ModelRequest): string => {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]
    if (message?.role !== "user") continue
    for (let j = message.content.length - 1; j >= 0; j--) {
      const part = message.content[j]
      if (part?._tag === "text") return part.text
    }
  }
  return ""
}

/** Without a script: a short reply built from the prompt, so a first run shows something real. */
const defaultResponse = (request: ModelRequest): Response => {
  const prompt = lastUserText(request).replace(/\s+/g, " ").trim()
  const quoted = prompt.length > 200 ? `${prompt.slice(0, 199)}…` : prompt
  return {
    chunks: words(`You said: "${quoted}". This is the scripted model; pass --script FILE to script its answers, or --model anthropic/<id> for a real one.`),
    delayMs: 0
  }
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4)

const play = (response: Response, responseIndex: number, request: ModelRequest): Stream.Stream<ModelStreamEvent, ModelError> => {
  const toEvent = (chunk: Chunk, index: number): ModelStreamEvent => {
    if ("text" in chunk) return { _tag: "TextDelta", text: chunk.text }
    if ("thinking" in chunk) {
      return { _tag: "ThinkingDelta", text: chunk.thinking, ...(chunk.signature === undefined ? {} : { signature: chunk.signature }) }
    }
    return {
      _tag: "ToolCall",
      toolCallId: chunk.toolCall.id ?? `call_script_${responseIndex + 1}_${index + 1}`,
      name: chunk.toolCall.name,
      input: chunk.toolCall.input
    }
  }
  const failAt = response.failAfter ?? (response.error === undefined ? undefined : response.chunks.length)
  const played = failAt === undefined ? response.chunks : response.chunks.slice(0, failAt)
  const delay = Duration.millis(response.delayMs)
  // Without a delay the pieces arrive together, as one chunk (as an adapter gives what one read brought).
  const events = Stream.fromIterable(played.map(toEvent))
  const chunks = response.delayMs > 0 ? events.pipe(Stream.tap(() => Effect.sleep(delay))) : events
  if (failAt !== undefined) {
    const error = new ModelError({
      code: response.error?.code ?? "scripted",
      message: response.error?.message ?? `scripted failure after ${failAt} chunk(s)`
    })
    return Stream.concat(chunks, Stream.fail(error))
  }
  const hasToolCalls = response.chunks.some((chunk) => "toolCall" in chunk)
  const outputText = response.chunks.map((c) => ("text" in c ? c.text : "thinking" in c ? c.thinking : JSON.stringify(c.toolCall.input))).join("")
  const usage = response.usage ?? {
    inputTokens: estimateTokens(JSON.stringify(request.messages) + request.system),
    outputTokens: estimateTokens(outputText)
  }
  const completed: ModelStreamEvent = {
    _tag: "Completed",
    stopReason: response.stopReason ?? (hasToolCalls ? "tool_calls" : "final"),
    usage
  }
  return Stream.concat(chunks, Stream.make(completed))
}

export const scriptedInfo = (script?: ValidScript): ModelInfo => ({
  id: "scripted",
  provider: "scripted",
  contextWindow: script?.contextWindow ?? 200_000,
  maxOutputTokens: script?.maxOutputTokens ?? 8_192,
  capabilities: { streaming: true, toolCalls: true, thinking: true, images: false }
})

/**
 * Plays `script.responses` in order, one per model request, with a cursor per session; a
 * session that asks for more responses than the script has gets a clear `scripted` error.
 */
export const make = (input?: Script): Effect.Effect<ModelGatewayShape, ScriptError> =>
  Effect.gen(function* () {
    const script = input === undefined ? undefined : yield* validate(input, "script")
    const cursors = new Map<string, number>()
    const summaryCursors = new Map<string, number>()
    const responses = script?.responses.map(normalize)
    const agentScripts = new Map(
      Object.entries(script?.agents ?? {}).map(([name, agent]) => [
        name,
        {
          responses: agent.responses?.map(normalize),
          prompts: new Map(Object.entries(agent.prompts ?? {}).map(([prompt, responses]) => [prompt, responses.map(normalize)]))
        }
      ])
    )
    /** The list a child session plays, chosen at its first request by its delegation prompt. */
    const childLists = new Map<string, ReadonlyArray<Response>>()
    const childList = (request: ModelRequest, agent: string): Either.Either<ReadonlyArray<Response>, ModelError> => {
      const known = childLists.get(request.sessionId)
      if (known !== undefined) return Either.right(known)
      const scripted = agentScripts.get(agent)
      if (scripted === undefined) {
        return Either.left(new ModelError({ code: "scripted", message: `the script has no responses for the agent ${agent} (add "agents": { "${agent}": { "responses": [...] } })` }))
      }
      const prompt = firstUserText(request)
      const list = scripted.prompts.get(prompt) ?? scripted.responses
      if (list === undefined) {
        const prompts = [...scripted.prompts.keys()].map((known) => JSON.stringify(known)).join(", ")
        return Either.left(new ModelError({ code: "scripted", message: `the script's agent ${agent} has no responses for the prompt ${JSON.stringify(prompt)} (its prompts: ${prompts}) and no "responses" for others` }))
      }
      childLists.set(request.sessionId, list)
      return Either.right(list)
    }
    /** A compaction request gets the script's next summary, or a short one built from the request. */
    const summarize = (request: ModelRequest) => {
      const index = summaryCursors.get(request.sessionId) ?? 0
      summaryCursors.set(request.sessionId, index + 1)
      const scripted = script?.summaries?.[index]
      const asked = lastUserText(request)
      return play({ chunks: words(scripted ?? `Earlier conversation (${asked.length} characters) summarized: ${asked.slice(0, 160).replace(/\s+/g, " ")}`), delayMs: 0 }, index, request)
    }
    const info = scriptedInfo(script)
    // Like the real adapters, a prompt that would not fit the window (with the output reserved) is refused before anything is played.
    const preflight = (request: ModelRequest) =>
      checkContextWindow({ request, info, reservedOutputTokens: info.maxOutputTokens, charsPerToken: CHARS_PER_TOKEN })
    const stream = (request: ModelRequest): Stream.Stream<ModelStreamEvent, ModelError> =>
      Stream.unwrap(Effect.as(preflight(request), Stream.suspend(() => answer(request))))
    const answer = (request: ModelRequest): Stream.Stream<ModelStreamEvent, ModelError> =>
      Stream.suspend(() => {
        if (request.purpose === "compaction") return summarize(request)
        if (responses === undefined) return play(defaultResponse(request), 0, request)
        // A subagent plays its agent's responses, never the top-level ones.
        const chosen = request.agent === undefined ? Either.right(responses) : childList(request, request.agent)
        if (Either.isLeft(chosen)) return Stream.fail(chosen.left)
        const own = chosen.right
        const index = cursors.get(request.sessionId) ?? 0
        cursors.set(request.sessionId, index + 1)
        const response = own[index]
        if (response === undefined) {
          const whose = request.agent === undefined ? "" : ` for the agent ${request.agent}`
          return Stream.fail(
            new ModelError({
              code: "scripted",
              message: `the script has no response left${whose}: it has ${own.length}, this is request ${index + 1} of the session`
            })
          )
        }
        return play(response, index, request)
      })
    return { info, stream }
  })

export const layer = (script?: Script) => Layer.effect(ModelGateway, make(script))
