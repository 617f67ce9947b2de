import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { EventStoreError } from "../domain/errors.js"
import type { HookEventName } from "../domain/hooks.js"
import { type HookRun, Hooks } from "../services/Hooks.js"
import { CurrentSession, CurrentTurn } from "./current-turn.js"
import type { Draft } from "./session-actor.js"

/** What a run means for the session, besides its facts: the model's text, a decision not followed. */
export interface RunNote {
  readonly context?: string
  readonly overruled?: string
  /** The prompt's `user.message` a UserPromptSubmit hook ran for. */
  readonly promptSequence?: number
}

/** A run's `hook.ran`, in the running turn if there is one (SessionEnd and `/compact` run outside a turn). */
export const hookRanDraft = (turnId: string | undefined, run: HookRun, note: RunNote & { readonly toolCallId?: string }): Draft => ({
  type: "hook.ran",
  ...(turnId === undefined ? {} : { turnId }),
  payload: {
    event: run.event,
    ...(run.matcher === undefined ? {} : { matcher: run.matcher }),
    command: run.command,
    source: run.source,
    ...(note.toolCallId === undefined ? {} : { toolCallId: note.toolCallId }),
    ...(note.promptSequence === undefined ? {} : { promptSequence: note.promptSequence }),
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    ...(run.outcome.decision === undefined ? {} : { decision: run.outcome.decision }),
    ...(run.outcome.reason === undefined ? {} : { reason: run.outcome.reason }),
    ...(note.overruled === undefined ? {} : { overruled: note.overruled }),
    ...(note.context === undefined ? {} : { context: note.context }),
    output: run.output,
    durationMs: run.durationMs
  }
})

/** Runs the event's hooks; nothing is recorded yet (the caller knows what each run means). */
export const runHooks = (
  event: HookEventName,
  fields: Readonly<Record<string, unknown>>,
  target?: string,
  toolCallId?: string
): Effect.Effect<ReadonlyArray<HookRun>, never, Hooks | CurrentSession> =>
  Effect.contextWithEffect((context: Context.Context<Hooks | CurrentSession>) => {
    const session = Context.get(context, CurrentSession)
    const turn = Context.getOption(context, CurrentTurn)
    const traceparent = Option.isSome(turn) ? turn.value.traceparent?.(toolCallId) : undefined
    return Context.get(context, Hooks).run({
      event,
      sessionId: session.sessionId,
      workspaceRoot: session.workspaceRoot,
      ...(target === undefined ? {} : { target }),
      ...(traceparent === undefined ? {} : { traceparent }),
      fields: { permission_mode: session.mode(), ...fields }
    })
  })

/** Records each run, in order, with what `noteOf` says it means. */
export const recordRuns = (
  runs: ReadonlyArray<HookRun>,
  noteOf: (run: HookRun) => RunNote,
  toolCallId?: string
): Effect.Effect<void, EventStoreError, CurrentSession> =>
  // No runs (no hooks configured, the usual case) cost nothing.
  runs.length === 0
    ? Effect.void
    : Effect.contextWithEffect((context: Context.Context<CurrentSession>) => {
        const session = Context.get(context, CurrentSession)
        const turn = Context.getOption(context, CurrentTurn)
        const turnId = Option.isSome(turn) ? turn.value.turnId : undefined
        return Effect.forEach(runs, (run) => session.emit(hookRanDraft(turnId, run, { ...noteOf(run), ...(toolCallId === undefined ? {} : { toolCallId }) })), {
          discard: true
        })
      })

/** The text a model gets from a hook: which hook said it, then what it said. */
export const hookText = (run: HookRun, text: string): string => `[${run.event} hook \`${run.command}\`]\n${text}`

/** What a run tells the model: a block's reason (PostToolUse) and its added context, if any. */
export const contextNote = (run: HookRun): RunNote => {
  const parts = [
    ...(run.outcome.decision === "block" && run.outcome.reason !== undefined ? [run.outcome.reason] : []),
    ...(run.outcome.additionalContext === undefined ? [] : [run.outcome.additionalContext])
  ]
  return parts.length === 0 ? {} : { context: hookText(run, parts.join("\n\n")) }
}

/** Runs whose added context goes to the model (SessionStart, PostToolUse), recorded. */
export const recordWithContext = (runs: ReadonlyArray<HookRun>, toolCallId?: string) => recordRuns(runs, contextNote, toolCallId)
