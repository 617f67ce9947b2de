import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { EventStoreError } from "../domain/errors.js"
import type { ToolCall, ToolResult } from "../domain/tools.js"
import type { HookRun, Hooks } from "../services/Hooks.js"
import type { CurrentSession } from "./current-turn.js"
import type { Verdict } from "../services/PermissionEngine.js"
import type { PreparedCall } from "../services/ToolRouter.js"
import { recordRuns, recordWithContext, type RunNote, runHooks } from "./hook-runs.js"

/** A verdict once the hooks had their say: who decided, and the hook that decided or changed it. */
export type HookedVerdict =
  | (Extract<Verdict, { readonly decision: "allow" | "deny" }> & { readonly hook?: string })
  | (Extract<Verdict, { readonly decision: "ask" }> & { readonly hook?: string })

/**
 * The call's input as a hook reads it: ours, plus Claude Code's `file_path` (absolute) for a
 * tool that takes a `path`, so a script written for Claude's Write or Edit finds the file.
 */
export const hookToolInput = (call: ToolCall, prepared: PreparedCall): unknown => {
  const input = call.input
  if (typeof input !== "object" || input === null || Array.isArray(input) || !("path" in input)) return input
  const path = prepared.paths[0]
  return path === undefined ? input : { ...input, file_path: path }
}

const toolFields = (call: ToolCall, prepared: PreparedCall) => ({
  tool_name: call.name,
  tool_input: hookToolInput(call, prepared),
  tool_use_id: call.toolCallId
})

const said = (run: HookRun, fallback: string) => `the ${run.event} hook \`${run.command}\`: ${run.outcome.reason ?? fallback}`

/** Whether a hook may turn this verdict into an allow: only what the rules would have asked a person about, by default. */
const allowable = (verdict: HookedVerdict): boolean => verdict.decision === "allow" || (verdict.decision === "ask" && verdict.firm !== true)

const overruledAllow = (verdict: HookedVerdict): string =>
  verdict.decision === "deny" ? `a hook cannot allow what is denied (${verdict.reason})` : `only a person may allow this (${verdict.reason})`

/**
 * PreToolUse: the call's hooks run after the rules decided, and can only narrow. A deny wins
 * over everything; an ask turns an allow into a question; an allow answers only a default
 * question (never a deny, an ask rule, a protected path or an unconfined command). Each run is
 * recorded, with the decision it could not make.
 */
export const preToolUse = (call: ToolCall, prepared: PreparedCall, verdict: Verdict): Effect.Effect<HookedVerdict, EventStoreError, Hooks | CurrentSession> =>
  Effect.gen(function* () {
    const runs = yield* runHooks("PreToolUse", toolFields(call, prepared), call.name, call.toolCallId)
    if (runs.length === 0) return verdict
    const deny = runs.find((run) => run.outcome.decision === "deny")
    const ask = runs.find((run) => run.outcome.decision === "ask")
    const allow = runs.find((run) => run.outcome.decision === "allow")
    let result: HookedVerdict = verdict
    const notes = new Map<HookRun, RunNote>()
    if (deny !== undefined) {
      result = { decision: "deny", by: "hook", scope: "once", reason: said(deny, "no reason given"), hook: deny.command }
    } else if (ask !== undefined) {
      if (verdict.decision === "allow") result = { decision: "ask", reason: said(ask, "it asks for a person's approval"), hook: ask.command }
      else if (verdict.decision === "ask") result = { ...verdict, hook: ask.command }
    } else if (allow !== undefined) {
      if (verdict.decision === "ask" && allowable(verdict)) {
        result = { decision: "allow", by: "hook", scope: "once", reason: said(allow, "it allows the call"), hook: allow.command }
      } else if (verdict.decision !== "allow") {
        notes.set(allow, { overruled: overruledAllow(verdict) })
      }
    }
    yield* recordRuns(runs, (run) => notes.get(run) ?? {}, call.toolCallId)
    return result
  })

/**
 * PermissionRequest: before a person is asked, the call's hooks may answer in their place: a
 * deny always, an allow only where a hook may allow (see preToolUse). None: ask the person.
 */
export const permissionRequest = (
  call: ToolCall,
  prepared: PreparedCall,
  verdict: Extract<HookedVerdict, { readonly decision: "ask" }>
): Effect.Effect<Option.Option<{ readonly decision: "allow" | "deny"; readonly reason: string; readonly hook: string }>, EventStoreError, Hooks | CurrentSession> =>
  Effect.gen(function* () {
    const runs = yield* runHooks("PermissionRequest", toolFields(call, prepared), call.name, call.toolCallId)
    if (runs.length === 0) return Option.none()
    const deny = runs.find((run) => run.outcome.decision === "deny")
    const allow = runs.find((run) => run.outcome.decision === "allow")
    const notes = new Map<HookRun, RunNote>()
    let answer: Option.Option<{ readonly decision: "allow" | "deny"; readonly reason: string; readonly hook: string }> = Option.none()
    if (deny !== undefined) answer = Option.some({ decision: "deny", reason: said(deny, "no reason given"), hook: deny.command })
    else if (allow !== undefined && allowable(verdict)) answer = Option.some({ decision: "allow", reason: said(allow, "it allows the call"), hook: allow.command })
    else if (allow !== undefined) notes.set(allow, { overruled: overruledAllow(verdict) })
    yield* recordRuns(runs, (run) => notes.get(run) ?? {}, call.toolCallId)
    return answer
  })

/**
 * PostToolUse: after a call that succeeded, its hooks run (a formatter after a write); what they
 * tell the model (a block's reason, added context) follows the call's result.
 */
export const postToolUse = (call: ToolCall, prepared: PreparedCall, result: ToolResult): Effect.Effect<void, EventStoreError, Hooks | CurrentSession> =>
  result.isError
    ? Effect.void
    : Effect.flatMap(
        runHooks(
          "PostToolUse",
          { ...toolFields(call, prepared), tool_response: { output: result.output, is_error: result.isError } },
          call.name,
          call.toolCallId
        ),
        (runs) => recordWithContext(runs, call.toolCallId)
      )
