import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { EventStoreError } from "../domain/errors.js"
import type { RememberedAnswer } from "../domain/permissions.js"
import type { ToolCall, ToolResult } from "../domain/tools.js"
import type { ApprovalsShape } from "../services/Approvals.js"
import type { IdKind } from "../services/Ids.js"
import { MAX_PENDING_CANDIDATES } from "../domain/memory-limits.js"
import type { MemoryStoreShape } from "../services/MemoryStore.js"
import type { PermissionCheck, PermissionEngineShape } from "../services/PermissionEngine.js"
import type { FileAccess, PreparedCall, ToolContext, ToolRouterShape } from "../services/ToolRouter.js"
import type { RecordCheckpoint } from "./checkpoint-record.js"
import { CurrentTurn, type CurrentTurnShape, type InTurn } from "./current-turn.js"
import type { Hooks } from "../services/Hooks.js"
import type { Draft } from "./session-actor.js"
import { messageOf } from "../domain/cause-message.js"
import { permissionRequest, postToolUse, preToolUse } from "./tool-hooks.js"
import { PLAN_TOOL } from "../domain/plan.js"
import { settlePlan } from "./plan-step.js"
import { ModeChange } from "./mode-change.js"
import { recordingOutput } from "./tool-output.js"

/** What one turn's tool calls go through besides the turn itself (`CurrentTurn`). */
export interface ToolStepServices {
  readonly router: ToolRouterShape
  readonly permissions: PermissionEngineShape
  readonly approvals: ApprovalsShape
  readonly files: FileAccess
  readonly memory: MemoryStoreShape
  readonly newId: (kind: IdKind) => Effect.Effect<string>
  /** Snapshots the workspace around a step's calls that may change it (not reads). */
  readonly checkpoint: RecordCheckpoint
}

/** One step's calls: the turn's services and the turn, read once per step. */
interface ToolStep extends ToolStepServices {
  readonly turn: CurrentTurnShape
}

interface Allowed {
  readonly call: ToolCall
  readonly prepared: PreparedCall
}

const complete = (ctx: ToolStep, toolCallId: string, result: ToolResult, durationMs: number) =>
  ctx.turn.emit({
    type: "tool.completed",
    turnId: ctx.turn.turnId,
    payload: {
      toolCallId,
      output: result.output,
      isError: result.isError,
      durationMs,
      ...(result.data === undefined ? {} : { data: result.data })
    }
  }).pipe(Effect.tap((event) => recordConsequences(ctx, toolCallId, result, event.sequence)))

/**
 * What some results mean for the session besides the model's view: a skill that entered the
 * conversation, the agent's task list, a memory candidate waiting for a person's review (it
 * has no effect before).
 */
const recordConsequences = (ctx: ToolStep, toolCallId: string, result: ToolResult, sequence: number) =>
  Effect.gen(function* () {
    if (result.isError || result.data === undefined) return
    const data = result.data
    if (data._tag === "skill") {
      yield* ctx.turn.emit({ type: "skill.loaded", turnId: ctx.turn.turnId, payload: { toolCallId, name: data.name, path: data.path } })
      return
    }
    if (data._tag === "todos") {
      yield* ctx.turn.emit({ type: "task.updated", turnId: ctx.turn.turnId, payload: { toolCallId, todos: data.todos } })
      return
    }
    if (data._tag !== "memory_candidate") return
    const candidateId = yield* ctx.newId("mem")
    const evidence = { sessionId: ctx.turn.sessionId, fromSequence: data.fromSequence ?? ctx.turn.turnStart, toSequence: data.toSequence ?? sequence }
    const proposed = yield* ctx.turn.emit({
      type: "memory.candidate_proposed",
      turnId: ctx.turn.turnId,
      payload: { candidateId, text: data.text, scope: data.scope, evidence }
    })
    yield* ctx.memory
      .propose({ id: candidateId, sessionId: ctx.turn.sessionId, workspaceRoot: ctx.turn.workspaceRoot, scope: data.scope, text: data.text, evidence, proposedAt: proposed.timestamp })
      .pipe(Effect.catchAll((error) => Effect.logWarning(`memory candidate ${candidateId} is in the log but not in the review queue`, error.message)))
  })

/**
 * A memory proposal when the review queue is full is refused before the model is told it was
 * proposed: its result says why, and no candidate is recorded (an error result has none).
 */
const refuseWhenReviewIsFull = (ctx: ToolStep, result: ToolResult): Effect.Effect<ToolResult> =>
  result.isError || result.data?._tag !== "memory_candidate"
    ? Effect.succeed(result)
    : ctx.memory.pending.pipe(
        Effect.map((pending): ToolResult =>
          pending.length < MAX_PENDING_CANDIDATES
            ? result
            : {
                output: `Not proposed: ${MAX_PENDING_CANDIDATES} memory candidates already wait for the user's review. Do not propose more until they are reviewed.`,
                isError: true
              }
        ),
        // The store says why itself when the proposal is kept (recordConsequences).
        Effect.catchAll(() => Effect.succeed(result))
      )

const traceparentOf = (ctx: ToolStep, toolCallId: string): { readonly traceparent?: string } => {
  const traceparent = ctx.turn.traceparent?.(toolCallId)
  return traceparent === undefined ? {} : { traceparent }
}

/** What `permission.resolved` says a lasting answer stored: its id and what it covers. */
const rememberedRef = ({ id, tool, commands, paths, access, input }: RememberedAnswer) => ({
  id,
  tool,
  ...(commands === undefined ? {} : { commands }),
  ...(paths === undefined ? {} : { paths }),
  ...(access === undefined ? {} : { access }),
  ...(input === undefined ? {} : { input })
})

/**
 * ToolRouter -> PermissionEngine (-> Approvals when it asks). Every call gets a
 * `permission.resolved` before it may start; a refused or invalid call is answered with an
 * error result the model can read, and never started.
 */
const authorize = (ctx: ToolStep, call: ToolCall): Effect.Effect<Option.Option<Allowed>, EventStoreError, InTurn | Hooks> =>
  Effect.gen(function* () {
    // A plan runs nothing: the person's answer settles it, not the rules (plan-step.ts).
    // Only a session's own turn has a mode to change (`ModeChange`); a subagent's plan call is routed like others.
    if (call.name === PLAN_TOOL) {
      const modes = yield* ModeChange
      if (Option.isSome(modes)) return yield* Effect.as(settlePlan(ctx.approvals, modes.value, call), Option.none())
    }
    const toolContext: ToolContext = {
      sessionId: ctx.turn.sessionId,
      toolCallId: call.toolCallId,
      workspaceRoot: ctx.turn.workspaceRoot,
      files: ctx.files,
      ...traceparentOf(ctx, call.toolCallId)
    }
    const prepared = yield* Effect.either(ctx.router.prepare(call, toolContext))
    if (prepared._tag === "Left") {
      yield* complete(ctx, call.toolCallId, { output: prepared.left.message, isError: true }, 0)
      return Option.none()
    }
    const check: PermissionCheck = {
      sessionId: ctx.turn.delegation.rootSessionId,
      workspaceRoot: ctx.turn.workspaceRoot,
      tool: call.name,
      // Read at each permission check: a mode set while the turn runs (an editor switching to
      // plan) holds from the next tool call on; a subagent's is its parent's.
      mode: ctx.turn.delegation.mode(),
      call: prepared.right,
      input: call.input
    }
    // The rules first; the hooks can only narrow what they decided.
    const verdict = yield* preToolUse(call, prepared.right, yield* ctx.permissions.decide(check))
    const hooked = verdict.hook === undefined ? {} : { hook: verdict.hook }
    const resolved = (payload: Extract<Draft, { type: "permission.resolved" }>["payload"]) =>
      ctx.turn.emit({ type: "permission.resolved", turnId: ctx.turn.turnId, payload })

    let decision: "allow" | "deny"
    let deniedBy: string
    const hookAnswer = verdict.decision === "ask" ? yield* permissionRequest(call, prepared.right, verdict) : Option.none()
    if (Option.isSome(hookAnswer)) {
      const answer = hookAnswer.value
      yield* resolved({
        toolCallId: call.toolCallId,
        decision: answer.decision,
        scope: "once",
        by: "hook",
        ...(verdict.rule === undefined ? {} : { rule: verdict.rule }),
        reason: answer.reason,
        hook: answer.hook
      })
      decision = answer.decision
      deniedBy = answer.reason
    } else if (verdict.decision === "ask") {
      const { risk, summary, detail } = prepared.right
      // What a lasting answer would cover is fixed now, shown with the question, and stored as shown.
      const lasting = yield* ctx.permissions.lasting(check)
      yield* ctx.turn.emit({
        type: "permission.requested",
        turnId: ctx.turn.turnId,
        payload: {
          toolCallId: call.toolCallId,
          tool: call.name,
          risk,
          summary,
          ...(detail === undefined ? {} : { detail }),
          ...(verdict.firm === true ? { firm: true } : {}),
          ...(prepared.right.outsideWorkspace ? { outsideWorkspace: true } : {}),
          ...(Option.isSome(lasting) ? { lasting: lasting.value } : {})
        }
      })
      const answer = yield* ctx.approvals
        .ask({
          sessionId: ctx.turn.sessionId,
          turnId: ctx.turn.turnId,
          toolCallId: call.toolCallId,
          tool: call.name,
          risk,
          summary,
          input: call.input,
          firm: verdict.firm === true,
          outsideWorkspace: prepared.right.outsideWorkspace,
          ...(detail === undefined ? {} : { detail }),
          ...(Option.isSome(lasting) ? { lasting: lasting.value } : {})
        })
        .pipe(
          // A cancel while waiting withdraws the question, on the record.
          Effect.onInterrupt(() =>
            resolved({ toolCallId: call.toolCallId, decision: "cancelled", scope: "once", by: "user", reason: "the turn was cancelled while waiting" }).pipe(
              Effect.catchAll((error) => Effect.logWarning("could not record the withdrawn permission request", error))
            )
          )
        )
      let remembered: Option.Option<RememberedAnswer> = Option.none()
      if (answer.scope !== "once") {
        if (Option.isNone(lasting)) {
          yield* Effect.logWarning(`the answer for ${call.name} holds nothing that can be remembered safely; it applies to this call only`)
        } else {
          remembered = yield* ctx.permissions.remember(check, answer.decision, answer.scope, lasting.value, answer.cover).pipe(
            Effect.map(Option.some),
            Effect.catchAll((error) => Effect.as(Effect.logWarning(`could not remember the answer ${answer.scope}`, error.message), Option.none()))
          )
        }
      }
      yield* resolved({
        toolCallId: call.toolCallId,
        decision: answer.decision,
        scope: answer.scope,
        by: answer.by,
        ...(verdict.rule === undefined ? {} : { rule: verdict.rule }),
        ...(answer.reason === undefined ? {} : { reason: answer.reason }),
        ...(answer.client === undefined ? {} : { client: answer.client }),
        ...(Option.isSome(remembered) ? { remembered: rememberedRef(remembered.value) } : {}),
        ...hooked
      })
      decision = answer.decision
      deniedBy = answer.by === "user" ? "the user" : `the approval policy${answer.reason === undefined ? "" : ` (${answer.reason})`}`
    } else {
      yield* resolved({
        toolCallId: call.toolCallId,
        decision: verdict.decision,
        scope: verdict.scope,
        by: verdict.by,
        ...(verdict.rule === undefined ? {} : { rule: verdict.rule }),
        reason: verdict.reason,
        ...hooked
      })
      decision = verdict.decision
      deniedBy = verdict.reason
    }
    if (decision === "deny") {
      yield* complete(ctx, call.toolCallId, { output: `Permission denied (${deniedBy}). The call was not run; adapt your plan.`, isError: true }, 0)
      return Option.none()
    }
    return Option.some({ call, prepared: prepared.right })
  })

/** Runs an allowed call; a crash of the tool is its error result, a cancel is recorded too. */
const execute = (ctx: ToolStep, { call, prepared }: Allowed): Effect.Effect<void, EventStoreError, InTurn | Hooks> =>
  Effect.gen(function* () {
    yield* ctx.turn.emit({
      type: "tool.started",
      turnId: ctx.turn.turnId,
      payload: { toolCallId: call.toolCallId, name: call.name, ...(prepared.sandbox === undefined ? {} : { sandbox: prepared.sandbox }) }
    })
    const started = yield* Clock.currentTimeMillis
    const elapsed = Effect.map(Clock.currentTimeMillis, (now) => now - started)
    // What a command writes while it runs is recorded as it goes (`tool.output`), before its result.
    const run = prepared.liveOutput === true ? recordingOutput(ctx.turn, call.toolCallId)(prepared.execute) : prepared.execute
    const result = yield* run.pipe(
      Effect.catchAllDefect((defect) =>
        Effect.succeed<ToolResult>({ output: `The tool failed unexpectedly: ${messageOf(defect)}`, isError: true })
      ),
      Effect.onInterrupt(() =>
        Effect.flatMap(elapsed, (ms) => complete(ctx, call.toolCallId, { output: "Cancelled before the tool finished.", isError: true }, ms)).pipe(
          Effect.catchAll((error) => Effect.logWarning("could not record the cancelled tool call", error))
        )
      )
    )
    const kept = yield* refuseWhenReviewIsFull(ctx, result)
    yield* complete(ctx, call.toolCallId, kept, yield* elapsed)
    yield* postToolUse(call, prepared, kept)
  })

/**
 * One step's tool calls, in the order requested. Consecutive reads run concurrently once each
 * is allowed; a write or an execution runs alone, after everything before it. Around the
 * first call that may change the workspace and after the step's calls, a checkpoint.
 */
export const runToolCalls = (services: ToolStepServices, calls: ReadonlyArray<ToolCall>): Effect.Effect<void, EventStoreError, InTurn | Hooks> =>
  Effect.gen(function* () {
    const ctx: ToolStep = { ...services, turn: yield* CurrentTurn }
    let changing = false
    let reads: Array<Allowed> = []
    const flushReads = Effect.suspend(() => {
      const batch = reads
      reads = []
      // A lone read runs on this fiber: forking one per call costs more than most reads.
      if (batch.length === 1 && batch[0] !== undefined) return execute(ctx, batch[0])
      return Effect.forEach(batch, (allowed) => execute(ctx, allowed), { concurrency: "unbounded", discard: true })
    })
    for (const call of calls) {
      const allowed = yield* authorize(ctx, call)
      if (Option.isNone(allowed)) continue
      if (allowed.value.prepared.risk === "read") {
        reads.push(allowed.value)
        continue
      }
      yield* flushReads
      if (!changing) yield* ctx.checkpoint("before_tools")
      changing = true
      yield* execute(ctx, allowed.value)
    }
    yield* flushReads
    if (changing) yield* ctx.checkpoint("after_tools")
  })
