import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { EventStoreError, ModelError } from "../domain/errors.js"
import type { QueuedMessage, TurnStopReason } from "../domain/events.js"
import type { ModelRequest, ModelStopReason, ModelStreamEvent } from "../domain/model.js"
import { textTokens } from "../domain/tokens.js"
import type { ToolCall } from "../domain/tools.js"
import type { ContextBuilderShape, ContextSourceText } from "../services/ContextBuilder.js"
import type { McpHubShape } from "../services/McpHub.js"
import type { ModelGatewayShape } from "../services/ModelGateway.js"
import type { TurnTerms } from "../domain/turn-terms.js"
import type { TurnAllowance } from "./turn-allowance.js"
import { compactHistory } from "./compaction.js"
import { forEachChunkPulled } from "./for-each-pulled.js"
import { assembleSystem, budgetOf, hashSource, measure, taskSection, withTasks } from "./context.js"
import type { Draft } from "./session-actor.js"
import { sourceKey } from "./session-state.js"
import { type OutputCheck, withOutputContract } from "./output-check.js"
import { runToolCalls, type ToolStepServices } from "./tools-step.js"
import { withPlanMode } from "./plan-tool.js"
import { contextNote, hookText, recordRuns, recordWithContext, runHooks } from "./hook-runs.js"
import type { HookRun, Hooks } from "../services/Hooks.js"
import { CurrentTurn, type CurrentTurnShape, type InTurn } from "./current-turn.js"

export interface TurnOutcome {
  readonly stopReason: TurnStopReason
  readonly errorCode?: string
  readonly message?: string
}

/** What a turn's body runs with besides the turn itself (`CurrentTurn`): its model, context and limits. */
export interface TurnSetup {
  /** The prompt that started the turn and its `user.message`'s sequence, as UserPromptSubmit hooks read it. */
  readonly prompt: { readonly content: string; readonly sequence: number }
  readonly gateway: ModelGatewayShape
  readonly context: ContextBuilderShape
  /** Share of the usable window a request may fill before older turns are compacted. */
  readonly compactionThreshold: number
  readonly mcp: McpHubShape
  /** The steps and spend the turn may still take: its own limits and those of every turn that delegated to it. */
  readonly allowance: TurnAllowance
  /** Spending limits and an output schema the prompt asked for. */
  readonly terms?: TurnTerms
  /** Judges the final answer against the output schema, if the turn has one. */
  readonly output: OutputCheck
  readonly tools: ToolStepServices
  /** Messages sent while the turn runs, read at each step boundary. */
  readonly takeSteering: Effect.Effect<ReadonlyArray<QueuedMessage>>
  /** The agent definition a subagent's turn runs, named in its model requests. */
  readonly agent?: string
  /** Set on the session's first turn in this process: SessionStart hooks run first (`startup`: a new session; `resume`: one loaded from its log). */
  readonly sessionStart?: "startup" | "resume"
}

/** The body's own view: its setup and the turn, read once. */
interface Turn extends TurnSetup {
  readonly turn: CurrentTurnShape
}

type StepResult =
  | { readonly _tag: "Failed"; readonly outcome: TurnOutcome }
  | {
      readonly _tag: "Completed"
      readonly stopReason: ModelStopReason
      readonly toolCalls: ReadonlyArray<ToolCall>
      /** The step's answer text, for the output check. */
      readonly text: string
    }

/**
 * The turn after admission: model step, tool calls through the permission boundary, results
 * back to the model, until a final answer, a stop, or the step limit.
 */
export const runTurnBody = (setup: TurnSetup): Effect.Effect<TurnOutcome, EventStoreError, InTurn | Hooks> =>
  Effect.gen(function* () {
    const ctx: Turn = { ...setup, turn: yield* CurrentTurn }
    // The context sources are read once per turn, at its first request: files edited during
    // a turn (AGENTS.md, a newly approved memory) count from the next one.
    const sources = readOnce(ctx.context.sources({ sessionId: ctx.turn.state.sessionId, workspaceRoot: ctx.turn.workspaceRoot }))
    if (ctx.sessionStart !== undefined) {
      yield* recordWithContext(yield* runHooks("SessionStart", { source: ctx.sessionStart }, ctx.sessionStart))
    }
    const blocked = yield* userPromptSubmit(ctx.prompt.content, ctx.prompt.sequence)
    if (Option.isSome(blocked)) {
      const message = `the UserPromptSubmit hook \`${blocked.value.command}\` blocked the prompt: ${blocked.value.outcome.reason ?? "no reason given"}`
      return { stopReason: "error", errorCode: "prompt_blocked", message }
    }
    // A Stop hook may send the agent back to work once per turn: the bound that keeps two hooks from looping.
    let continued = false
    for (let step = 1; ; step++) {
      // Step boundary: the step that crossed a limit has finished (its tools ran); no new request.
      const over = ctx.allowance.beforeStep(step)
      if (Option.isSome(over)) return over.value
      if (step > 1) yield* admitSteering(ctx)
      // The first step waits (bounded) for the session's MCP servers, so a one-shot prompt can
      // use them; what came of them is noticed before the request. Later steps do not wait.
      yield* ctx.mcp.awaitServers({ sessionId: ctx.turn.state.sessionId, workspaceRoot: ctx.turn.workspaceRoot })
      yield* recordMcpNotices(ctx)
      const result = yield* modelStep(ctx, sources)
      if (result._tag === "Failed") return result.outcome
      if (result.toolCalls.length > 0) {
        yield* runToolCalls(ctx.tools, result.toolCalls)
        continue
      }
      switch (result.stopReason) {
        case "pause":
          // The provider paused a long turn: sending the conversation back resumes it.
          continue
        case "max_tokens":
          return { stopReason: "max_tokens" }
        case "refusal":
          return { stopReason: "refusal" }
        case "final":
        case "stop_sequence":
        case "tool_calls": {
          if (yield* stopHooksContinue(continued)) {
            continued = true
            continue
          }
          // The answer that would end the turn meets the output contract, if the turn has one.
          const judged = yield* ctx.output.onFinal(result.text)
          if (Option.isSome(judged)) return judged.value
          continue
        }
      }
    }
  })

/**
 * UserPromptSubmit: a prompt's hooks run before the model sees it (the turn's own, and each
 * steering message). A block takes the prompt out of the conversation (it stays in the log);
 * added context follows it. Gives the blocking run, if any.
 */
const userPromptSubmit = (content: string, sequence: number): Effect.Effect<Option.Option<HookRun>, EventStoreError, InTurn | Hooks> =>
  Effect.gen(function* () {
    const runs = yield* runHooks("UserPromptSubmit", { prompt: content })
    const block = runs.find((run) => run.outcome.decision === "block")
    yield* recordRuns(runs, (run) => ({ promptSequence: sequence, ...(block === undefined ? contextNote(run) : {}) }))
    return Option.fromNullable(block)
  })

/**
 * Stop: when the agent would end its turn, its hooks run; one asking to go on (Claude Code's
 * `decision: "block"`, or exit 2) sends its reason to the model and the turn continues, once.
 * The next time they run with `stop_hook_active: true`, and a second request is recorded, not followed.
 */
const stopHooksContinue = (continued: boolean): Effect.Effect<boolean, EventStoreError, InTurn | Hooks> =>
  Effect.gen(function* () {
    const runs = yield* runHooks("Stop", { stop_hook_active: continued })
    const asking = runs.find((run) => run.outcome.decision === "continue")
    const goOn = asking !== undefined && !continued
    yield* recordRuns(runs, (run) => {
      if (run !== asking) return {}
      if (!goOn) return { overruled: "the turn already went on once for a Stop hook" }
      return { context: hookText(run, `Do not stop yet: ${run.outcome.reason ?? "the hook asked you to continue"}`) }
    })
    return goOn
  })

/**
 * The effect's first success, kept for the later runs. Not `Effect.cached`, whose later runs
 * cost more (this runs at every step of a turn); a failure is not kept, so the next run
 * tries again.
 */
const readOnce = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> => {
  let value: { readonly a: A } | undefined
  return Effect.suspend(() =>
    value !== undefined
      ? Effect.succeed(value.a)
      : Effect.tap(effect, (a) => {
          value = { a }
        })
  )
}

/**
 * Messages taken together are committed together (none, the usual case, costs nothing); then
 * each goes through the UserPromptSubmit hooks, which may take it out again (the turn goes on).
 */
const admitSteering = (ctx: Turn) =>
  Effect.flatMap(ctx.takeSteering, (messages) =>
    ctx.turn.emitAll(messages.map((message) => ({ type: "user.message", turnId: ctx.turn.turnId, payload: steeringPayload(message) }))).pipe(
      Effect.flatMap((admitted) =>
        Effect.forEach(admitted, (event) => (event.type === "user.message" ? userPromptSubmit(event.payload.content, event.sequence) : Effect.succeedNone), {
          discard: true
        })
      )
    )
  )

/** A steering message as its `user.message` says it, with the slash command it came from and the blocks attached to it. */
const steeringPayload = ({ content, command, attached }: QueuedMessage) => ({
  content,
  mode: "steer" as const,
  ...(command === undefined ? {} : { command }),
  ...(attached === undefined ? {} : { attached })
})

/** What the session's MCP servers went through since the last step: started, failed, slow, died. */
const recordMcpNotices = (ctx: Turn) =>
  Effect.flatMap(ctx.mcp.drainNotices(ctx.turn.state.sessionId), (notices) =>
    ctx.turn.emitAll(
      notices.map((notice) => ({
        type: "mcp.notice",
        turnId: ctx.turn.turnId,
        payload: { server: notice.server, state: notice.state, ...(notice.message === undefined ? {} : { message: notice.message }) }
      }))
    )
  )

/**
 * Builds the request: the context sources in their order (each text recorded in the log the
 * first time it is used or when it changed), the tools, and the conversation, compacted when
 * it would not fit the budget. What it was built from is recorded as `context.built`.
 */
const buildRequest = (ctx: Turn, gather: Effect.Effect<ReadonlyArray<ContextSourceText>>): Effect.Effect<ModelRequest, EventStoreError, InTurn | Hooks> =>
  Effect.gen(function* () {
    const scope = { sessionId: ctx.turn.state.sessionId, workspaceRoot: ctx.turn.workspaceRoot }
    // Tools first: listing them starts the session's MCP servers, whose instructions are a source.
    const tools = yield* ctx.tools.router.definitions(scope)
    const sources = yield* gather
    const hashes = sources.map(hashSource)
    for (const [i, source] of sources.entries()) {
      const hash = hashes[i] ?? ""
      if (ctx.turn.state.recordedSources.get(sourceKey(source.kind, source.id)) === hash) continue
      yield* ctx.turn.emit({ type: "context.source", turnId: ctx.turn.turnId, payload: { kind: source.kind, id: source.id, hash, text: source.text } })
    }
    const budget = budgetOf(ctx.gateway.info, ctx.compactionThreshold)
    // The task list is the session's own state: carried whole in every request, never compacted.
    const tasks = ctx.turn.state.conversation.tasks()
    const tasksText = taskSection(tasks?.todos)
    const tasksTokens = tasksText === "" ? 0 : textTokens(tasksText)
    let size = measure(sources, ctx.turn.state.conversation.snapshot(), tools)
    if (size.total + tasksTokens > budget) {
      const compacted = yield* compactHistory(ctx.gateway, "budget")
      if (Option.isSome(compacted)) size = measure(sources, ctx.turn.state.conversation.snapshot(), tools)
    }
    // A long turn can outgrow the window on its own: its finished steps are folded in too,
    // keeping the last one verbatim when that is enough, else all of them.
    const turnStart = ctx.turn.state.turns.findLast((turn) => turn.turnId === ctx.turn.turnId)?.start ?? 0
    for (const keep of [1, 0]) {
      if (size.total + tasksTokens <= budget) break
      const ends = ctx.turn.state.conversation.stepEnds(turnStart)
      const through = ends[ends.length - 1 - keep]
      if (through === undefined) continue
      const compacted = yield* compactHistory(ctx.gateway, "budget", { through })
      if (Option.isSome(compacted)) size = measure(sources, ctx.turn.state.conversation.snapshot(), tools)
    }
    const messages = ctx.turn.state.conversation.snapshot()
    const compactedThrough = ctx.turn.state.conversation.compactedThrough()
    yield* ctx.turn.emit({
      type: "context.built",
      turnId: ctx.turn.turnId,
      payload: {
        sources: sources.map((source, i) => ({ kind: source.kind, id: source.id, hash: hashes[i] ?? "", tokens: size.sources[i] ?? 0 })),
        historyTokens: size.history,
        toolsTokens: size.tools,
        totalTokens: size.total + tasksTokens,
        budget,
        tools: tools.map((tool) => tool.name),
        ...(compactedThrough > 0 ? { compactedThrough } : {}),
        ...(tasks === undefined || tasksText === "" ? {} : { tasks: { sequence: tasks.sequence, tokens: tasksTokens } })
      }
    })
    return {
      sessionId: ctx.turn.state.sessionId,
      purpose: "turn",
      ...(ctx.agent === undefined ? {} : { agent: ctx.agent }),
      system: withTasks(withPlanMode(withOutputContract(assembleSystem(sources), ctx.terms), tools.map((tool) => tool.name)), tasksText),
      messages,
      tools
    }
  })

const modelStep = (ctx: Turn, sources: Effect.Effect<ReadonlyArray<ContextSourceText>>): Effect.Effect<StepResult, EventStoreError, InTurn | Hooks> =>
  Effect.gen(function* () {
    const request = yield* buildRequest(ctx, sources)
    let completed: { readonly stopReason: ModelStopReason } | undefined
    let text = ""
    const toolCalls: Array<ToolCall> = []
    const draftOf = (event: ModelStreamEvent): Draft => {
      switch (event._tag) {
        case "TextDelta":
          text += event.text
          return { type: "model.delta", turnId: ctx.turn.turnId, payload: { text: event.text } }
        case "ThinkingDelta":
          return {
            type: "model.thinking_delta",
            turnId: ctx.turn.turnId,
            payload: {
              text: event.text,
              ...(event.signature === undefined ? {} : { signature: event.signature }),
              ...(event.redacted === undefined ? {} : { redacted: event.redacted }),
              ...(event.encryptedReasoning === undefined ? {} : { encryptedReasoning: event.encryptedReasoning })
            }
          }
        case "ToolCall":
          toolCalls.push({ toolCallId: event.toolCallId, name: event.name, input: event.input })
          return {
            type: "model.tool_call_requested",
            turnId: ctx.turn.turnId,
            payload: { toolCallId: event.toolCallId, name: event.name, input: event.input }
          }
        case "Completed":
          completed = { stopReason: event.stopReason }
          return {
            type: "model.completed",
            turnId: ctx.turn.turnId,
            payload: {
              stopReason: event.stopReason,
              usage: event.usage,
              model: ctx.gateway.info.id,
              ...(event.costUsd === undefined ? {} : { costUsd: event.costUsd })
            }
          }
      }
    }
    // What arrived together is committed together: one append per chunk of the answer.
    const failure = yield* forEachChunkPulled(ctx.gateway.stream(request), (chunk) => ctx.turn.emitAll(Chunk.toReadonlyArray(chunk).map(draftOf))).pipe(
      Effect.as(Option.none<ModelError>()),
      Effect.catchTag("ModelError", (error) => Effect.succeed(Option.some(error)))
    )
    if (Option.isSome(failure)) return yield* failStep(ctx, failure.value.code, failure.value.message)
    if (completed === undefined) {
      return yield* failStep(ctx, "invalid_response", "the model stream ended without a completion")
    }
    return { _tag: "Completed", ...completed, toolCalls, text }
  })

const failStep = (ctx: Turn, code: ModelError["code"], message: string) =>
  ctx.turn.emit({ type: "model.failed", turnId: ctx.turn.turnId, payload: { reason: message, code } }).pipe(
    Effect.as<StepResult>({ _tag: "Failed", outcome: { stopReason: "error", errorCode: code, message } })
  )
