import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { EventStoreError, ModelError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { ConversationMessage, ModelInfo } from "../domain/model.js"
import { CHARS_PER_TOKEN, textTokens } from "../domain/tokens.js"
import type { ModelGatewayShape } from "../services/ModelGateway.js"
import { historyTokens } from "./context.js"
import { type HookContext, recordRuns, runHooks } from "./hook-runs.js"
import type { Draft } from "./session-actor.js"
import type { SessionState } from "./session-state.js"

export interface CompactionContext {
  readonly state: SessionState
  readonly gateway: ModelGatewayShape
  readonly emit: (draft: Draft) => Effect.Effect<AgentEvent, EventStoreError>
  /** Turn that is running (its own messages are never compacted), if any. */
  readonly currentTurnId?: string
  /** PreCompact hooks run (and are recorded) through this before a summary is asked for. */
  readonly hooks?: HookContext
}

const summaryInstructions =
  "You summarize the earlier part of a coding session so the assistant can continue it without the original messages. " +
  "Keep what matters for the work ahead: the user's goals and constraints, decisions made and why, files read or changed " +
  "(with paths), commands run and their outcomes, errors met, and what is still open. Be factual and concise; do not invent."

/** A plain-text transcript, so the summary request has no tool-use pairing rules to satisfy. */
const transcriptOf = (messages: ReadonlyArray<ConversationMessage>): string =>
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
    .join("\n\n")

/** Splits a transcript into pieces one summary request can hold. */
const piecesOf = (transcript: string, info: ModelInfo): ReadonlyArray<string> => {
  const maxChars = Math.max(4_000, Math.floor(info.contextWindow / 2) * CHARS_PER_TOKEN)
  const pieces: Array<string> = []
  for (let at = 0; at < transcript.length; at += maxChars) pieces.push(transcript.slice(at, at + maxChars))
  return pieces
}

const askForSummary = (ctx: CompactionContext, previous: string, piece: string): Effect.Effect<string, ModelError> =>
  ctx.gateway
    .stream({
      sessionId: ctx.state.sessionId,
      purpose: "compaction",
      system: summaryInstructions,
      tools: [],
      messages: [
        {
          role: "user",
          content: [
            {
              _tag: "text",
              text: `${previous === "" ? "" : `Summary so far:\n\n${previous}\n\n`}Conversation to fold into the summary:\n\n${piece}\n\nWrite the complete, updated summary.`
            }
          ]
        }
      ]
    })
    .pipe(
      Stream.runFold("", (text, event) => (event._tag === "TextDelta" ? text + event.text : text))
    )

/**
 * Summarizes every completed turn before the current one that is not summarized yet, and
 * records it as `context.compacted`. The log keeps every original event; requests after it
 * use the summary. Gives none when there is nothing to compact or the summary failed (the
 * request then goes out as it is, and the adapter's preflight stops it if it cannot fit).
 */
export const compactHistory = (
  ctx: CompactionContext,
  trigger: "budget" | "request"
): Effect.Effect<Option.Option<AgentEvent>, EventStoreError> =>
  Effect.gen(function* () {
    const conversation = ctx.state.conversation
    const compactedThrough = conversation.compactedThrough()
    // A rewound turn is not in the conversation: nothing of it to summarize.
    const done = ctx.state.turns.filter(
      (turn) => turn.end !== undefined && turn.turnId !== ctx.currentTurnId && turn.end > compactedThrough && conversation.holds(turn.start)
    )
    const boundary = done.reduce((max, turn) => Math.max(max, turn.end ?? 0), 0)
    if (done.length === 0 || boundary <= compactedThrough) return Option.none()
    if (ctx.hooks !== undefined) {
      // Claude Code's names: `auto` when the budget asked for it, `manual` for /compact. They can save state; they cannot stop it.
      const hookTrigger = trigger === "budget" ? "auto" : "manual"
      const runs = yield* runHooks(ctx.hooks, "PreCompact", { trigger: hookTrigger, custom_instructions: "" }, hookTrigger)
      yield* recordRuns(ctx.hooks, runs, () => ({}))
    }
    const older = conversation.through(boundary)
    const tokensBefore = historyTokens(older)
    const pieces = piecesOf(transcriptOf(older), ctx.gateway.info)
    const summary = yield* Effect.reduce(pieces, "", (previous, piece) => askForSummary(ctx, previous, piece)).pipe(Effect.either)
    if (summary._tag === "Left" || summary.right.trim() === "") {
      const reason = summary._tag === "Left" ? summary.left.message : "the model returned an empty summary"
      yield* Effect.logWarning(`compaction of ${ctx.state.sessionId} skipped: ${reason}`)
      return Option.none()
    }
    const event = yield* ctx.emit({
      type: "context.compacted",
      payload: {
        summary: summary.right.trim(),
        throughSequence: boundary,
        tokensBefore,
        tokensAfter: textTokens(summary.right) + 16,
        turns: done.map((turn) => turn.turnId),
        trigger
      }
    })
    return Option.some(event)
  })
