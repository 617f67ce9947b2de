import { Effect, Option, Stream } from "effect"
import type { EventStoreError, ModelError } from "../domain/errors.js"
import type { AgentEvent, TurnStopReason } from "../domain/events.js"
import type { ModelRequest, ModelStopReason, ModelStreamEvent } from "../domain/model.js"
import type { ToolCall } from "../domain/tools.js"
import type { ModelGatewayShape } from "../services/ModelGateway.js"
import type { Draft } from "./SessionEngine.js"
import type { SessionState } from "./session-state.js"
import { runToolCalls, type ToolStepContext } from "./tools-step.js"

export interface TurnOutcome {
  readonly stopReason: TurnStopReason
  readonly errorCode?: string
  readonly message?: string
}

export interface TurnContext {
  readonly turnId: string
  readonly state: SessionState
  readonly gateway: ModelGatewayShape
  readonly systemPrompt: string
  readonly maxSteps: number
  readonly tools: ToolStepContext
  /** Messages sent while the turn runs, read at each step boundary. */
  readonly takeSteering: Effect.Effect<ReadonlyArray<string>>
  readonly emit: (draft: Draft) => Effect.Effect<AgentEvent, EventStoreError>
}

type StepResult =
  | { readonly _tag: "Failed"; readonly outcome: TurnOutcome }
  | { readonly _tag: "Completed"; readonly stopReason: ModelStopReason; readonly toolCalls: ReadonlyArray<ToolCall> }

/**
 * The turn after admission: model step, tool calls through the permission boundary, results
 * back to the model, until a final answer, a stop, or the step limit.
 */
export const runTurnBody = (ctx: TurnContext): Effect.Effect<TurnOutcome, EventStoreError> =>
  Effect.gen(function* () {
    for (let step = 1; step <= ctx.maxSteps; step++) {
      if (step > 1) yield* admitSteering(ctx)
      const result = yield* modelStep(ctx)
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
        case "tool_calls":
          return { stopReason: "final" }
      }
    }
    return { stopReason: "max_steps", message: `the turn reached its limit of ${ctx.maxSteps} model steps` }
  })

const admitSteering = (ctx: TurnContext) =>
  Effect.flatMap(ctx.takeSteering, (messages) =>
    Effect.forEach(
      messages,
      (content) => ctx.emit({ type: "user.message", turnId: ctx.turnId, payload: { content, mode: "steer" } }),
      { discard: true }
    )
  )

const modelStep = (ctx: TurnContext): Effect.Effect<StepResult, EventStoreError> =>
  Effect.gen(function* () {
    const request: ModelRequest = {
      sessionId: ctx.state.sessionId,
      system: ctx.systemPrompt,
      messages: ctx.state.conversation.snapshot(),
      tools: yield* ctx.tools.router.definitions({ sessionId: ctx.state.sessionId, workspaceRoot: ctx.tools.workspaceRoot })
    }
    let completed: ModelStopReason | undefined
    const toolCalls: Array<ToolCall> = []
    const onEvent = (event: ModelStreamEvent): Effect.Effect<unknown, EventStoreError> => {
      switch (event._tag) {
        case "TextDelta":
          return ctx.emit({ type: "model.delta", turnId: ctx.turnId, payload: { text: event.text } })
        case "ThinkingDelta":
          return ctx.emit({
            type: "model.thinking_delta",
            turnId: ctx.turnId,
            payload: {
              text: event.text,
              ...(event.signature === undefined ? {} : { signature: event.signature }),
              ...(event.redacted === undefined ? {} : { redacted: event.redacted })
            }
          })
        case "ToolCall":
          toolCalls.push({ toolCallId: event.toolCallId, name: event.name, input: event.input })
          return ctx.emit({
            type: "model.tool_call_requested",
            turnId: ctx.turnId,
            payload: { toolCallId: event.toolCallId, name: event.name, input: event.input }
          })
        case "Completed":
          completed = event.stopReason
          return ctx.emit({
            type: "model.completed",
            turnId: ctx.turnId,
            payload: { stopReason: event.stopReason, usage: event.usage }
          })
      }
    }
    const failure = yield* ctx.gateway.stream(request).pipe(
      Stream.runForEach(onEvent),
      Effect.as(Option.none<ModelError>()),
      Effect.catchTag("ModelError", (error) => Effect.succeed(Option.some(error)))
    )
    if (Option.isSome(failure)) return yield* failStep(ctx, failure.value.code, failure.value.message)
    if (completed === undefined) {
      return yield* failStep(ctx, "invalid_response", "the model stream ended without a completion")
    }
    return { _tag: "Completed", stopReason: completed, toolCalls }
  })

const failStep = (ctx: TurnContext, code: ModelError["code"], message: string) =>
  ctx.emit({ type: "model.failed", turnId: ctx.turnId, payload: { reason: message, code } }).pipe(
    Effect.as<StepResult>({ _tag: "Failed", outcome: { stopReason: "error", errorCode: code, message } })
  )
