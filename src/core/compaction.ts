import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { type EventStoreError, ModelError } from "../domain/errors.js"
import type { AgentEvent, PayloadOf } from "../domain/events.js"
import type { ConversationMessage, ModelInfo, ModelRequest } from "../domain/model.js"
import { noSpend, requestSpend, type Spend, sumSpend } from "../domain/spend.js"
import { summarySectionHeadings } from "../domain/summary-sections.js"
import { CHARS_PER_TOKEN, estimatePromptTokens, MESSAGE_OVERHEAD, PART_OVERHEAD, textTokens } from "../domain/tokens.js"
import type { ModelGatewayShape } from "../services/ModelGateway.js"
import { historyTokens } from "./context.js"
import { recordRuns, runHooks } from "./hook-runs.js"
import { CurrentSession, type CurrentSessionShape, CurrentTurn } from "./current-turn.js"
import type { Hooks } from "../services/Hooks.js"
import { parseSections, summaryText } from "./summary.js"

/** What a compaction asks its summaries of, and of which session (the current work's). */
interface Compaction {
  readonly session: CurrentSessionShape
  readonly gateway: ModelGatewayShape
}

const summaryInstructions =
  "You summarize the earlier part of a coding session so the assistant can continue it without the original messages. " +
  "Answer with exactly these sections, each under its Markdown heading, in this order:\n\n" +
  summarySectionHeadings.map(([, heading]) => `## ${heading}`).join("\n") +
  "\n\nGoal: what the user wants done, in their terms. Decisions and constraints: choices made and why, and every instruction " +
  "or constraint of the user's that still holds (quote them). Progress: what was done, commands run and their outcomes, errors " +
  "met. Next step: the very next action. Open questions: what is unresolved or must be asked (write `none` if nothing). " +
  "Do not list changed files (the session log supplies them) and do not copy the task list (it is kept apart and shown with " +
  "every request). Be factual and concise; do not invent."

/** Lines of a plain-text transcript, so the summary request has no tool-use pairing rules to satisfy. */
const transcriptLines = (messages: ReadonlyArray<ConversationMessage>): ReadonlyArray<string> =>
  messages
    .flatMap((message) =>
      message.content.map((part) => {
        switch (part._tag) {
          case "text":
            return `${message.role === "user" ? "User" : "Assistant"}: ${part.text}`
          case "thinking":
            return ""
          case "tool_call":
            return `Assistant called ${part.name} ${JSON.stringify(part.input)}`
          case "tool_result":
            return `Tool result${part.isError ? " (error)" : ""}: ${part.output.length > 2_000 ? `${part.output.slice(0, 2_000)} [...]` : part.output}`
        }
      })
    )
    .filter((line) => line !== "")

const summaryRequest = (sessionId: string, previous: string, piece: ReadonlyArray<string>): ModelRequest => ({
  sessionId,
  purpose: "compaction",
  system: summaryInstructions,
  tools: [],
  messages: [
    {
      role: "user",
      content: [
        {
          _tag: "text",
          text: `${previous === "" ? "" : `Summary so far:\n\n${previous}\n\n`}Conversation to fold into the summary:\n\n${piece.join("\n\n")}\n\nWrite the complete, updated summary.`
        }
      ]
    }
  ]
})

/**
 * The prompt tokens one summary request may use: the window less the output the adapters
 * reserve (the model's whole output limit), with a margin for tokenizers denser than the
 * engine's estimate. The same estimate as the adapters' preflight measures each request.
 */
const compactionLimit = (info: ModelInfo): number =>
  Math.max(1_024, Math.floor((info.contextWindow - Math.min(info.maxOutputTokens, Math.floor(info.contextWindow / 2))) * 0.85))

/** Too little room for the conversation beside the summary so far: the summary alone nearly fills the window. */
const MIN_PIECE_CHARS = 200

interface Summarizer {
  readonly ask: (previous: string, piece: ReadonlyArray<string>) => Effect.Effect<string, ModelError>
  readonly requests: () => number
  /** What the summary requests that completed spent. */
  readonly spend: () => Spend
}

const summarizer = (ctx: Compaction): Summarizer => {
  let count = 0
  let spend = noSpend
  const send = (previous: string, piece: ReadonlyArray<string>): Effect.Effect<string, ModelError> =>
    ctx.gateway.stream(summaryRequest(ctx.session.sessionId, previous, piece)).pipe(
      Stream.runFold("", (text, event) => {
        if (event._tag === "Completed") spend = sumSpend(spend, requestSpend(event.usage, event.costUsd))
        return event._tag === "TextDelta" ? text + event.text : text
      }),
      Effect.tap(() => {
        count++
      })
    )
  // A request the adapter still finds too big (its tokenizer counts more than the estimate) is split in two, and again.
  const ask = (previous: string, piece: ReadonlyArray<string>): Effect.Effect<string, ModelError> =>
    send(previous, piece).pipe(
      Effect.catchIf(
        (error) => error.code === "context_overflow" && halves(piece) !== undefined,
        () => {
          const [first, second] = halves(piece) ?? [[], []]
          return Effect.flatMap(ask(previous, first), (summary) => ask(summary, second))
        }
      )
    )
  return { ask, requests: () => count, spend: () => spend }
}

/** A piece in two: by lines, or a single line by characters; none when it is too small to split. */
const halves = (piece: ReadonlyArray<string>): readonly [ReadonlyArray<string>, ReadonlyArray<string>] | undefined => {
  if (piece.length > 1) {
    const middle = Math.ceil(piece.length / 2)
    return [piece.slice(0, middle), piece.slice(middle)]
  }
  const line = piece[0] ?? ""
  if (line.length < MIN_PIECE_CHARS * 2) return undefined
  const middle = Math.ceil(line.length / 2)
  return [[line.slice(0, middle)], [`(continued) ${line.slice(middle)}`]]
}

/**
 * Folds the transcript into the summary piece by piece, each request preflighted against
 * `limit` before it is sent: as many lines as fit beside the summary so far, a line longer
 * than the room cut into parts. Fails when the summary so far leaves no room. A piece's size
 * is added up line by line (the estimate counts characters, so an empty piece's estimate plus
 * the lines' own never falls short of the whole request's).
 */
const summarizeInPieces = (
  ctx: Compaction,
  start: string,
  lines: ReadonlyArray<string>,
  limit: number,
  ask: Summarizer["ask"]
): Effect.Effect<string, ModelError> =>
  Effect.gen(function* () {
    const sessionId = ctx.session.sessionId
    const queue = [...lines]
    let previous = start
    let at = 0
    while (at < queue.length) {
      const base = estimatePromptTokens(summaryRequest(sessionId, previous, [""]))
      // Characters the lines may take beside the rest of the request; each line after the first adds its separator.
      const room = (limit - base) * CHARS_PER_TOKEN
      if (room < MIN_PIECE_CHARS) {
        return yield* new ModelError({
          code: "context_overflow",
          message: `the summary so far leaves no room in the ${ctx.gateway.info.contextWindow}-token window for more of the conversation`
        })
      }
      const piece: Array<string> = []
      let used = 0
      while (at < queue.length) {
        const line = queue[at] ?? ""
        const cost = line.length + (piece.length === 0 ? 0 : 2)
        if (used + cost > room) break
        piece.push(line)
        used += cost
        at++
      }
      if (piece.length === 0) {
        // One line alone does not fit: send the part that does, keep the rest for the next piece.
        const line = queue[at] ?? ""
        piece.push(line.slice(0, room))
        queue[at] = `(continued) ${line.slice(room)}`
      }
      previous = (yield* ask(previous, piece)).trim()
    }
    return previous
  })

/**
 * Summarizes every completed turn before the current one that is not summarized yet (or, with
 * `inTurn`, also the running turn's steps through one of its step ends), and records it as
 * `context.compacted`: the model's summary in fixed sections, the files the log says were
 * changed, and how many requests it took. The log keeps every original event; requests after
 * it use the summary. Gives none when there is nothing to compact or the summary failed (the
 * request then goes out as it is, and the adapter's preflight stops it if it cannot fit).
 */
export const compactHistory = (
  gateway: ModelGatewayShape,
  trigger: "budget" | "request",
  inTurn?: { readonly through: number }
): Effect.Effect<Option.Option<AgentEvent>, EventStoreError, CurrentSession | Hooks> =>
  Effect.gen(function* () {
    const session = yield* CurrentSession
    // The running turn, if any: its own messages are never compacted (but for `inTurn`'s steps).
    const currentTurnId = Option.getOrUndefined(Option.map(yield* Effect.serviceOption(CurrentTurn), (turn) => turn.turnId))
    const ctx: Compaction = { session, gateway }
    const conversation = session.state.conversation
    const compactedThrough = conversation.compactedThrough()
    // A rewound turn is not in the conversation: nothing of it to summarize.
    const done = session.state.turns.filter(
      (turn) =>
        (turn.end !== undefined || (inTurn !== undefined && turn.turnId === currentTurnId)) &&
        (turn.turnId !== currentTurnId || inTurn !== undefined) &&
        (turn.end ?? Number.MAX_SAFE_INTEGER) > compactedThrough &&
        conversation.holds(turn.start)
    )
    const boundary = inTurn?.through ?? done.reduce((max, turn) => Math.max(max, turn.end ?? 0), 0)
    if (done.length === 0 || boundary <= compactedThrough) return Option.none()
    // Claude Code's names: `auto` when the budget asked for it, `manual` for /compact. They can save state; they cannot stop it.
    const hookTrigger = trigger === "budget" ? "auto" : "manual"
    const runs = yield* runHooks("PreCompact", { trigger: hookTrigger, custom_instructions: "" }, hookTrigger)
    yield* recordRuns(runs, () => ({}))
    const tokensBefore = historyTokens(conversation.through(boundary))
    const summarize = summarizer(ctx)
    const previous = conversation.summary()?.summary ?? ""
    const lines = transcriptLines(conversation.since(boundary))
    const summary = yield* summarizeInPieces(ctx, previous, lines, compactionLimit(ctx.gateway.info), summarize.ask).pipe(Effect.either)
    if (summary._tag === "Left" || summary.right.trim() === "") {
      const reason = summary._tag === "Left" ? summary.left.message : "the model returned an empty summary"
      yield* Effect.logWarning(`compaction of ${session.sessionId} skipped: ${reason}`)
      return Option.none()
    }
    const text = summary.right.trim()
    const payload: PayloadOf<"context.compacted"> = {
      summary: text,
      fromSequence: compactedThrough + 1,
      throughSequence: boundary,
      sections: parseSections(text),
      changedFiles: conversation.changedFiles(1, boundary),
      pieces: summarize.requests(),
      spend: summarize.spend(),
      tokensBefore,
      tokensAfter: 0,
      turns: done.map((turn) => turn.turnId),
      trigger
    }
    const event = yield* session.emit({
      type: "context.compacted",
      payload: { ...payload, tokensAfter: textTokens(summaryText(payload)) + MESSAGE_OVERHEAD + PART_OVERHEAD }
    })
    return Option.some(event)
  })
