import type { AgentEvent, EventOf, PayloadOf } from "../../domain/events.js"
import { agentSpanIdOf, chatSpanIdOf, toolSpanIdOf, traceIdOf } from "./span-ids.js"

export type AttributeValue = string | number | boolean | ReadonlyArray<string>

export interface SpanEvent {
  readonly name: string
  readonly timeMs: number
  readonly attributes: Readonly<Record<string, AttributeValue>>
}

/** A finished span, in OpenTelemetry's terms, projected from committed events. */
export interface ProjectedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: "internal" | "client"
  readonly startMs: number
  readonly endMs: number
  readonly attributes: Readonly<Record<string, AttributeValue>>
  readonly events: ReadonlyArray<SpanEvent>
  /** Set when the span failed: its status message. */
  readonly error?: string
}

export interface ProjectionOptions {
  /** Prompts, answers, tool arguments and results as attributes (off: only their shape). */
  readonly captureContent: boolean
}

interface OpenSpan {
  readonly spanId: string
  name: string
  readonly kind: ProjectedSpan["kind"]
  readonly startMs: number
  readonly attributes: Record<string, AttributeValue>
  readonly events: Array<SpanEvent>
}

interface OpenTurn {
  readonly sessionId: string
  readonly turnId: string
  readonly traceId: string
  readonly agent: OpenSpan
  requests: number
  chat: OpenSpan | undefined
  chatText: string
  readonly tools: Map<string, OpenSpan>
  readonly prompts: Array<string>
  inputTokens: number
  outputTokens: number
  costUsd: number
  lastMs: number
}

const agentName = "custom-agent"
const msOf = (event: AgentEvent) => {
  const ms = Date.parse(event.timestamp)
  return Number.isFinite(ms) ? ms : 0
}

/** `anthropic/claude-x` → provider `anthropic`, model `claude-x`; `scripted` is its own provider. */
const modelParts = (id: string | undefined): { readonly provider: string; readonly model: string } => {
  if (id === undefined) return { provider: "unknown", model: "unknown" }
  const slash = id.indexOf("/")
  return slash < 0 ? { provider: id, model: id } : { provider: id.slice(0, slash), model: id.slice(slash + 1) }
}

const ended = (turn: OpenTurn, span: OpenSpan, endMs: number, error?: string): ProjectedSpan => ({
  traceId: turn.traceId,
  spanId: span.spanId,
  ...(span === turn.agent ? {} : { parentSpanId: turn.agent.spanId }),
  name: span.name,
  kind: span.kind,
  startMs: span.startMs,
  endMs: Math.max(endMs, span.startMs),
  attributes: span.attributes,
  events: span.events,
  ...(error === undefined ? {} : { error })
})

/**
 * Turns a session's committed events into spans following the OpenTelemetry GenAI
 * conventions: `invoke_agent` per turn (the trace's root), `chat` per model request and
 * `execute_tool` per tool call as its children, with the permission question and decision as
 * span events. Fed live (events of many sessions, interleaved) and by an export (one
 * session's log), it gives the same spans: each is emitted when the event that ends it is.
 * State is kept only for turns still open.
 */
export const makeSpanProjector = (options: ProjectionOptions) => {
  const turns = new Map<string, OpenTurn>()
  const key = (sessionId: string, turnId: string) => `${sessionId}\u0000${turnId}`

  const startTurn = (event: EventOf<"turn.started">, turnId: string): OpenTurn => {
    const at = msOf(event)
    const turn: OpenTurn = {
      sessionId: event.sessionId,
      turnId,
      traceId: traceIdOf(event.sessionId, turnId),
      agent: {
        spanId: agentSpanIdOf(event.sessionId, turnId),
        name: `invoke_agent ${agentName}`,
        kind: "internal",
        startMs: at,
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.agent.name": agentName,
          "gen_ai.conversation.id": event.sessionId,
          "custom_agent.session.id": event.sessionId,
          "custom_agent.turn.id": turnId,
          ...(event.payload.permissionMode === undefined ? {} : { "custom_agent.permission_mode": event.payload.permissionMode })
        },
        events: []
      },
      requests: 0,
      chat: undefined,
      chatText: "",
      tools: new Map(),
      prompts: [],
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
      lastMs: at
    }
    turns.set(key(event.sessionId, turnId), turn)
    return turn
  }

  const openChat = (turn: OpenTurn, at: number): OpenSpan => {
    turn.requests++
    const span: OpenSpan = {
      spanId: chatSpanIdOf(turn.sessionId, turn.turnId, turn.requests),
      name: "chat",
      kind: "client",
      startMs: at,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.conversation.id": turn.sessionId,
        "custom_agent.session.id": turn.sessionId,
        "custom_agent.turn.id": turn.turnId
      },
      events: []
    }
    turn.chat = span
    turn.chatText = ""
    return span
  }

  const toolSpan = (turn: OpenTurn, toolCallId: string, at: number, name?: string): OpenSpan => {
    const known = turn.tools.get(toolCallId)
    if (known !== undefined) return known
    const span: OpenSpan = {
      spanId: toolSpanIdOf(turn.sessionId, turn.turnId, toolCallId),
      name: name === undefined ? "execute_tool" : `execute_tool ${name}`,
      kind: "internal",
      startMs: at,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.call.id": toolCallId,
        "gen_ai.tool.type": "function",
        ...(name === undefined ? {} : { "gen_ai.tool.name": name }),
        "custom_agent.session.id": turn.sessionId,
        "custom_agent.turn.id": turn.turnId
      },
      events: []
    }
    turn.tools.set(toolCallId, span)
    return span
  }

  const closeTurn = (turn: OpenTurn, at: number, outcome: PayloadOf<"turn.completed">) => {
    const out: Array<ProjectedSpan> = []
    const unfinished = "the turn ended before this finished"
    if (turn.chat !== undefined) out.push(ended(turn, turn.chat, at, unfinished))
    for (const span of turn.tools.values()) out.push(ended(turn, span, at, unfinished))
    const attributes = turn.agent.attributes
    attributes["custom_agent.turn.stop_reason"] = outcome.stopReason
    attributes["gen_ai.usage.input_tokens"] = turn.inputTokens
    attributes["gen_ai.usage.output_tokens"] = turn.outputTokens
    attributes["custom_agent.cost_usd"] = turn.costUsd
    if (options.captureContent && turn.prompts.length > 0) {
      attributes["gen_ai.input.messages"] = JSON.stringify(turn.prompts.map((content) => ({ role: "user", parts: [{ type: "text", content }] })))
    }
    const failed = outcome.stopReason === "error"
    if (failed) attributes["error.type"] = outcome.errorCode ?? "error"
    // A failure's message may quote what failed (a provider's error, an answer's problems): content.
    const why = options.captureContent ? (outcome.message ?? outcome.errorCode) : outcome.errorCode
    out.push(ended(turn, turn.agent, at, failed ? (why ?? "the turn failed") : undefined))
    turns.delete(key(turn.sessionId, turn.turnId))
    return out
  }

  /** The spans this event ends (usually none). */
  const push = (event: AgentEvent): ReadonlyArray<ProjectedSpan> => {
    const turnId = event.turnId
    if (turnId === undefined) return []
    const at = msOf(event)
    if (event.type === "turn.started") {
      startTurn(event, turnId)
      return []
    }
    const turn = turns.get(key(event.sessionId, turnId))
    // A turn whose start this projector never saw (live, it began before tracing did) is left out.
    if (turn === undefined) return []
    turn.lastMs = at
    switch (event.type) {
      case "user.message":
        if (options.captureContent) turn.prompts.push(event.payload.content)
        return []
      case "context.built":
        // The request is built and about to be sent: its span starts here.
        openChat(turn, at)
        return []
      case "model.delta":
        if (turn.chat !== undefined && options.captureContent) turn.chatText += event.payload.text
        return []
      case "model.completed": {
        const span = turn.chat ?? openChat(turn, at)
        const { usage, stopReason, costUsd, model } = event.payload
        const { provider, model: name } = modelParts(model)
        Object.assign(span.attributes, {
          "gen_ai.provider.name": provider,
          "gen_ai.request.model": name,
          "gen_ai.usage.input_tokens": usage.inputTokens,
          "gen_ai.usage.output_tokens": usage.outputTokens,
          "gen_ai.response.finish_reasons": [stopReason],
          ...(usage.cacheReadTokens === undefined ? {} : { "gen_ai.usage.cache_read.input_tokens": usage.cacheReadTokens }),
          ...(usage.cacheWriteTokens === undefined ? {} : { "gen_ai.usage.cache_creation.input_tokens": usage.cacheWriteTokens }),
          ...(costUsd === undefined ? {} : { "custom_agent.cost_usd": costUsd }),
          ...(options.captureContent && turn.chatText !== ""
            ? { "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: turn.chatText }] }]) }
            : {})
        })
        span.name = `chat ${name}`
        turn.inputTokens += usage.inputTokens
        turn.outputTokens += usage.outputTokens
        turn.costUsd += costUsd ?? 0
        turn.chat = undefined
        return [ended(turn, span, at)]
      }
      case "model.failed": {
        const span = turn.chat ?? openChat(turn, at)
        span.attributes["error.type"] = event.payload.code
        turn.chat = undefined
        return [ended(turn, span, at, options.captureContent ? event.payload.reason : event.payload.code)]
      }
      case "model.tool_call_requested": {
        const span = toolSpan(turn, event.payload.toolCallId, at, event.payload.name)
        if (options.captureContent) span.attributes["gen_ai.tool.call.arguments"] = JSON.stringify(event.payload.input)
        return []
      }
      case "permission.requested": {
        const span = toolSpan(turn, event.payload.toolCallId, at)
        span.events.push({
          name: "permission.requested",
          timeMs: at,
          attributes: { "custom_agent.permission.risk": event.payload.risk, ...(options.captureContent ? { "custom_agent.permission.summary": event.payload.summary } : {}) }
        })
        return []
      }
      case "permission.resolved": {
        const span = toolSpan(turn, event.payload.toolCallId, at)
        const { decision, scope, by, rule } = event.payload
        span.events.push({
          name: "permission.resolved",
          timeMs: at,
          attributes: {
            "custom_agent.permission.decision": decision,
            "custom_agent.permission.scope": scope,
            "custom_agent.permission.decided_by": by,
            ...(rule === undefined ? {} : { "custom_agent.permission.rule": `${rule.source}#${rule.index + 1}` })
          }
        })
        span.attributes["custom_agent.permission.decision"] = decision
        span.attributes["custom_agent.permission.decided_by"] = by
        return []
      }
      case "plan.proposed": {
        const span = toolSpan(turn, event.payload.toolCallId, at)
        span.events.push({ name: "plan.proposed", timeMs: at, attributes: options.captureContent ? { "custom_agent.plan": event.payload.plan } : {} })
        return []
      }
      case "plan.resolved": {
        const span = toolSpan(turn, event.payload.toolCallId, at)
        const { decision, by, mode } = event.payload
        span.events.push({
          name: "plan.resolved",
          timeMs: at,
          attributes: { "custom_agent.plan.decision": decision, "custom_agent.plan.decided_by": by, ...(mode === undefined ? {} : { "custom_agent.plan.mode": mode }) }
        })
        return []
      }
      case "tool.started": {
        const span = toolSpan(turn, event.payload.toolCallId, at, event.payload.name)
        span.events.push({ name: "tool.started", timeMs: at, attributes: {} })
        return []
      }
      case "tool.completed": {
        const span = toolSpan(turn, event.payload.toolCallId, at)
        turn.tools.delete(event.payload.toolCallId)
        if (options.captureContent) span.attributes["gen_ai.tool.call.result"] = event.payload.output
        if (event.payload.isError) span.attributes["error.type"] = "tool_error"
        return [ended(turn, span, at, event.payload.isError ? "the tool call failed" : undefined)]
      }
      case "turn.completed":
        return closeTurn(turn, at, event.payload)
      default:
        return []
    }
  }

  /**
   * Ends the turns still open, at their last event (an export of a log whose process died
   * mid-turn: the trace shows how far it got).
   */
  const flush = (): ReadonlyArray<ProjectedSpan> =>
    [...turns.values()].flatMap((turn) => closeTurn(turn, turn.lastMs, { stopReason: "error", errorCode: "unfinished", message: "the log ends inside this turn" } as const))

  return { push, flush }
}

/** A whole log's spans: what `sessions export --otlp` sends. */
export const projectLog = (events: Iterable<AgentEvent>, options: ProjectionOptions): ReadonlyArray<ProjectedSpan> => {
  const projector = makeSpanProjector(options)
  const spans: Array<ProjectedSpan> = []
  for (const event of events) spans.push(...projector.push(event))
  spans.push(...projector.flush())
  return spans
}
