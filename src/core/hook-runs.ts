import * as Effect from "effect/Effect"
import type { EventStoreError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import type { HookEventName } from "../domain/hooks.js"
import type { PermissionMode } from "../domain/permissions.js"
import type { HookRun, HooksShape } from "../services/Hooks.js"
import type { Draft } from "./session-actor.js"

/** What the engine needs to run a session's hooks and record their runs. */
export interface HookContext {
  readonly hooks: HooksShape
  readonly sessionId: string
  readonly workspaceRoot: string
  readonly turnId?: string
  /** The session's mode now, Claude Code's `permission_mode`. */
  readonly mode: () => PermissionMode
  readonly emit: (draft: Draft) => Effect.Effect<AgentEvent, EventStoreError>
  /** The `traceparent` of a call's span (or the turn's, without a call), when tracing is on: hooks get it as TRACEPARENT. */
  readonly traceparent?: (toolCallId?: string) => string | undefined
}

/** What a run means for the session, besides its facts: the model's text, a decision not followed. */
export interface RunNote {
  readonly context?: string
  readonly overruled?: string
  /** The prompt's `user.message` a UserPromptSubmit hook ran for. */
  readonly promptSequence?: number
}

export const hookRanDraft = (ctx: HookContext, run: HookRun, note: RunNote & { readonly toolCallId?: string }): Draft => ({
  type: "hook.ran",
  ...(ctx.turnId === undefined ? {} : { turnId: ctx.turnId }),
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
  ctx: HookContext,
  event: HookEventName,
  fields: Readonly<Record<string, unknown>>,
  target?: string,
  toolCallId?: string
): Effect.Effect<ReadonlyArray<HookRun>> =>
  Effect.suspend(() => {
    const traceparent = ctx.traceparent?.(toolCallId)
    return ctx.hooks.run({
      event,
      sessionId: ctx.sessionId,
      workspaceRoot: ctx.workspaceRoot,
      ...(target === undefined ? {} : { target }),
      ...(traceparent === undefined ? {} : { traceparent }),
      fields: { permission_mode: ctx.mode(), ...fields }
    })
  })

/** Records each run, in order, with what `noteOf` says it means. */
export const recordRuns = (
  ctx: HookContext,
  runs: ReadonlyArray<HookRun>,
  noteOf: (run: HookRun) => RunNote,
  toolCallId?: string
): Effect.Effect<void, EventStoreError> =>
  Effect.forEach(runs, (run) => ctx.emit(hookRanDraft(ctx, run, { ...noteOf(run), ...(toolCallId === undefined ? {} : { toolCallId }) })), {
    discard: true
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
export const recordWithContext = (ctx: HookContext, runs: ReadonlyArray<HookRun>, toolCallId?: string) => recordRuns(ctx, runs, contextNote, toolCallId)
