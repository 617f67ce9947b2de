import { Schema } from "effect"
import { type AgentEvent, MessageMode, SummarySections, TurnStopReason } from "../../src/domain/events.js"
import { TodoItem } from "../../src/domain/tasks.js"
import { type HostFrame, Inbox } from "../../src/domain/host.js"
import { hookSummary } from "../../src/domain/hook-summary.js"
import { ModelErrorCode } from "../../src/domain/model.js"
import { projectWidening } from "../../src/domain/project-widening.js"
import { AnswerCover, DecidedBy, PermissionDecision, PermissionMode, PermissionScope, RuleRef } from "../../src/domain/permissions.js"
import { RiskClass, ToolResultData } from "../../src/domain/tools.js"
import { PLAN_TOOL, PlanDecision, PlanExitMode } from "../../src/domain/plan.js"
import { conversationSpans, inSpans } from "../../src/domain/rewound.js"
import { noRedo, RedoCount, redoAfter } from "./redo-count.js"
import { restoredNote, rewoundNote } from "./rewind-notes.js"
import { statsAfter, TurnStats } from "./turn-stats.js"
import { shownCost } from "../../src/domain/spend.js"

/**
 * What the page shows of one session, rebuilt from its events alone: a pure reducer, so a
 * replay, a resume and a live stream end in the same view. It is a Schema so a view saved
 * in sessionStorage can be read back safely after a reload.
 */
const position = { sequence: Schema.Int, turnId: Schema.optional(Schema.String) }

export const UserBlock = Schema.TaggedStruct("user", { ...position, content: Schema.String, mode: MessageMode })
/** Consecutive deltas of one assistant block; `streaming` until the model step ends. */
export const TextBlock = Schema.TaggedStruct("text", { ...position, text: Schema.String, streaming: Schema.Boolean })
export const ThinkingBlock = Schema.TaggedStruct("thinking", {
  ...position,
  text: Schema.String,
  redacted: Schema.Boolean,
  streaming: Schema.Boolean
})

/** A permission question; `open` while it can still be answered. */
export const Ask = Schema.Struct({
  risk: RiskClass,
  summary: Schema.String,
  detail: Schema.optional(Schema.String),
  /** What a lasting answer would store, as the question showed it (its offers: `lastingChoices`). */
  lasting: Schema.optional(AnswerCover),
  open: Schema.Boolean
})
export type Ask = typeof Ask.Type

export const Decision = Schema.Struct({
  decision: PermissionDecision,
  scope: PermissionScope,
  by: DecidedBy,
  rule: Schema.optional(RuleRef),
  reason: Schema.optional(Schema.String),
  /** The hook command that decided, or that made it a question. */
  hook: Schema.optional(Schema.String)
})
export type Decision = typeof Decision.Type

/** How a plan's question ended, as `plan.resolved` says. */
export const PlanResolution = Schema.Struct({
  decision: PlanDecision,
  by: Schema.Literal("user", "policy"),
  mode: Schema.optional(PlanExitMode),
  client: Schema.optional(Schema.String),
  note: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String)
})
export type PlanResolution = typeof PlanResolution.Type

/** A plan the model proposed (`exit_plan_mode`): its Markdown, `open` while a person can still approve it or send it back. */
export const PlanAsk = Schema.Struct({
  text: Schema.String,
  open: Schema.Boolean,
  resolution: Schema.optional(PlanResolution)
})
export type PlanAsk = typeof PlanAsk.Type

export const ToolOutcome = Schema.Struct({
  output: Schema.String,
  isError: Schema.Boolean,
  durationMs: Schema.Finite,
  data: Schema.optional(ToolResultData)
})
export type ToolOutcome = typeof ToolOutcome.Type

/**
 * What a running call printed so far (its `tool.output` events): the end of it, with a line
 * where the log left bytes out; `capped` once the log records no more of it before the result.
 */
export const LiveOutput = Schema.Struct({ text: Schema.String, capped: Schema.Boolean })
export type LiveOutput = typeof LiveOutput.Type

/** Characters of a running call's output the page keeps: its end. */
export const LIVE_OUTPUT_CHARS = 64 * 1024

/** `live` with one `tool.output` more: its text after a line for what was skipped, the end kept. */
export const withLiveOutput = (live: LiveOutput | undefined, payload: { readonly text: string; readonly skipped?: number | undefined; readonly capped?: boolean | undefined }): LiveOutput => {
  const before = live?.text ?? ""
  const gap = payload.skipped === undefined ? "" : `${before === "" || before.endsWith("\n") ? "" : "\n"}[… ${payload.skipped} bytes not shown …]\n`
  const all = `${before}${gap}${payload.text}`
  return { text: all.length > LIVE_OUTPUT_CHARS ? all.slice(-LIVE_OUTPUT_CHARS) : all, capped: payload.capped === true }
}

export const ToolBlock = Schema.TaggedStruct("tool", {
  ...position,
  toolCallId: Schema.String,
  name: Schema.String,
  input: Schema.Unknown,
  ask: Schema.optional(Ask),
  permission: Schema.optional(Decision),
  /** Set on an `exit_plan_mode` call in plan mode: the plan and its question. */
  plan: Schema.optional(PlanAsk),
  started: Schema.Boolean,
  /** Its output while it runs; kept after a result that does not carry the output (a cancel). */
  live: Schema.optional(LiveOutput),
  result: Schema.optional(ToolOutcome),
  /** The turn ended before the call produced a result: it never ran. */
  abandoned: Schema.Boolean
})
export type ToolBlock = typeof ToolBlock.Type

export const FailureBlock = Schema.TaggedStruct("failure", { ...position, reason: Schema.String, code: ModelErrorCode })

/** A model request's failure: its own block while its turn runs, then part of the turn's end. */
export const ModelFailure = Schema.Struct({ reason: Schema.String, code: ModelErrorCode })
export type ModelFailure = typeof ModelFailure.Type

export const TurnEndBlock = Schema.TaggedStruct("turnEnd", {
  ...position,
  stopReason: TurnStopReason,
  errorCode: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  /** The model request whose failure ended the turn: said once, with the end. */
  failure: Schema.optional(ModelFailure)
})
export type TurnEndBlock = typeof TurnEndBlock.Type

/** A proposed memory as the log tells it: pending until a memory.approved or memory.rejected names it. */
export const CandidateNote = Schema.Struct({
  id: Schema.String,
  text: Schema.String,
  status: Schema.Literal("pending", "approved", "rejected")
})
export type CandidateNote = typeof CandidateNote.Type

/** What a compaction replaced and what stands for it now, as the compaction note shows it. */
export const CompactionNote = Schema.Struct({
  from: Schema.Int,
  through: Schema.Finite,
  tokensBefore: Schema.Finite,
  tokensAfter: Schema.Finite,
  pieces: Schema.optional(Schema.Int),
  sections: Schema.optional(SummarySections),
  changedFiles: Schema.optional(Schema.Array(Schema.String)),
  /** One line per block of the events it replaced, in order (the blocks stay in the timeline). */
  replaced: Schema.Array(Schema.String)
})
export type CompactionNote = typeof CompactionNote.Type

/** A line about the session rather than the conversation: compaction, memory, skills, MCP servers, rewinds. */
export const NoteBlock = Schema.TaggedStruct("note", {
  ...position,
  topic: Schema.Literal("compaction", "memory", "skill", "mcp", "permissions", "mode", "model", "rewind", "hook", "output", "subagent"),
  tone: Schema.Literal("info", "warning"),
  text: Schema.String,
  /** Longer text shown on demand (a compaction's summary). */
  detail: Schema.optional(Schema.String),
  candidate: Schema.optional(CandidateNote),
  compaction: Schema.optional(CompactionNote),
  /** A subagent's start: its session, shown as a nested timeline on demand. */
  child: Schema.optional(Schema.Struct({ sessionId: Schema.String, agent: Schema.String }))
})
export type NoteBlock = typeof NoteBlock.Type

export const Block = Schema.Union(UserBlock, TextBlock, ThinkingBlock, ToolBlock, FailureBlock, TurnEndBlock, NoteBlock)
export type Block = typeof Block.Type

/** A `conversation.rewound` as the view keeps it: where it is in the log, and where it went back to. */
export const Rewind = Schema.Struct({ sequence: Schema.Int, toSequence: Schema.Int })

/** Where a forked session came from: its first events are a copy of that session's up to `atSequence`. */
export const ForkedFrom = Schema.Struct({ sessionId: Schema.String, atSequence: Schema.Int })
export type ForkedFrom = typeof ForkedFrom.Type

export const Header = Schema.Struct({
  cwd: Schema.String,
  client: Schema.String,
  createdAt: Schema.String,
  title: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  forkedFrom: Schema.optional(ForkedFrom)
})
export type Header = typeof Header.Type

/**
 * What the last baseline said about permission questions while the session was not running:
 * a question asked up to `through` that is not in `pending` is not waiting for anyone (its
 * turn was interrupted, or the question withdrawn), so no card offers to answer it.
 */
export const Settled = Schema.Struct({ through: Schema.Finite, pending: Schema.Array(Schema.String) })
export type Settled = typeof Settled.Type

export const TimelineState = Schema.Struct({
  sessionId: Schema.String,
  /** The last event applied; a resume asks for the events after it. */
  lastSequence: Schema.NonNegativeInt,
  header: Schema.optional(Header),
  /** From the host's Status frames: true also between turns the queue starts back to back. */
  running: Schema.Boolean,
  inbox: Inbox,
  /** The session's permission mode now; unknown until a baseline or a mode change says. */
  mode: Schema.optional(PermissionMode),
  blocks: Schema.Array(Block),
  /** Per turn: times, tokens, changed files and checkpoints. */
  turns: Schema.Array(TurnStats),
  settled: Schema.optional(Settled),
  /** Every `conversation.rewound`, in log order: which events are shown as rewound follows from them. */
  rewinds: Schema.Array(Rewind),
  /** How many rewinds a Redo can still undo. */
  redo: RedoCount,
  /** Every `task.updated`, in log order: the list pinned at the top is the last one a rewind did not take back. */
  tasks: Schema.optional(Schema.Array(Schema.Struct({ sequence: Schema.Int, todos: Schema.Array(TodoItem) })))
})
export type TimelineState = typeof TimelineState.Type

export const emptyTimeline = (sessionId: string): TimelineState => ({
  sessionId,
  lastSequence: 0,
  running: false,
  inbox: { nextTurn: [], nextStep: [] },
  blocks: [],
  turns: [],
  rewinds: [],
  redo: noRedo
})

type Streamed = Extract<Block, { readonly _tag: "text" | "thinking" }>

const turnOf = (event: AgentEvent) => (event.turnId === undefined ? {} : { turnId: event.turnId })

/** Ends the text or thinking block that is streaming, if any: what follows starts a new block. */
const seal = (blocks: ReadonlyArray<Block>): Array<Block> => {
  const last = blocks.at(-1)
  if ((last?._tag === "text" || last?._tag === "thinking") && last.streaming) {
    return [...blocks.slice(0, -1), { ...last, streaming: false }]
  }
  return [...blocks]
}

const appendStreamed = (blocks: ReadonlyArray<Block>, event: AgentEvent, fresh: Streamed): Array<Block> => {
  const last = blocks.at(-1)
  if (last !== undefined && last._tag === fresh._tag && last.streaming && last.turnId === event.turnId) {
    return [...blocks.slice(0, -1), { ...last, text: last.text + fresh.text }]
  }
  return [...seal(blocks), fresh]
}

/** Updates the block of a tool call (the newest with that id), creating it if no request was seen. */
const updateTool = (
  blocks: ReadonlyArray<Block>,
  event: AgentEvent,
  toolCallId: string,
  name: string,
  update: (tool: ToolBlock) => ToolBlock
): Array<Block> => {
  const index = blocks.findLastIndex((b) => b._tag === "tool" && b.toolCallId === toolCallId)
  const found = blocks[index]
  if (found?._tag === "tool") return blocks.map((b, i) => (i === index ? update(found) : b))
  const created: ToolBlock = { _tag: "tool", sequence: event.sequence, ...turnOf(event), toolCallId, name, input: undefined, started: false, abandoned: false }
  return [...seal(blocks), update(created)]
}

/** A turn that ended can no longer be asked anything, and its calls without a result will not run. */
const closeTurn = (blocks: ReadonlyArray<Block>, turnId: string | undefined): Array<Block> =>
  blocks.map((b) => {
    if (b._tag !== "tool" || b.turnId !== turnId || b.result !== undefined) return b
    return { ...b, abandoned: true, ...(b.ask === undefined ? {} : { ask: { ...b.ask, open: false } }), ...(b.plan === undefined ? {} : { plan: { ...b.plan, open: false } }) }
  })

const isProposal = (block: Block, candidateId: string): block is NoteBlock =>
  block._tag === "note" && block.candidate?.id === candidateId

/** The decision on a candidate closes its proposal: nothing more to review there. */
const settle = (blocks: ReadonlyArray<Block>, candidateId: string, status: CandidateNote["status"]): Array<Block> =>
  blocks.map((b) => (isProposal(b, candidateId) && b.candidate !== undefined ? { ...b, candidate: { ...b.candidate, status } } : b))

/** What a candidate proposed, for the note of its rejection (the event itself does not repeat it). */
const proposalOf = (blocks: ReadonlyArray<Block>, candidateId: string): string | undefined => {
  const found = blocks.find((b) => isProposal(b, candidateId))
  return found?._tag === "note" ? found.candidate?.text : undefined
}

const isSettled = (settled: Settled | undefined, sequence: number, toolCallId: string): boolean =>
  settled !== undefined && sequence <= settled.through && !settled.pending.includes(toolCallId)

const blocksAfter = (blocks: ReadonlyArray<Block>, event: AgentEvent, settled: Settled | undefined): ReadonlyArray<Block> => {
  const at = { sequence: event.sequence, ...turnOf(event) }
  switch (event.type) {
    case "session.created":
    case "session.renamed":
    case "session.archived":
    case "turn.started":
    case "inbox.updated":
    case "context.source":
    case "context.built":
    // Shown elsewhere: the task list pinned at the top of the session.
    case "task.updated":
    // Shown elsewhere: a checkpoint on its turn's summary, a fork in the header.
    case "checkpoint.recorded":
    case "session.forked":
      return blocks
    case "checkpoint.restored":
      return [...seal(blocks), { _tag: "note", ...at, topic: "rewind", ...restoredNote(event.payload) }]
    case "conversation.rewound":
      return [...seal(blocks), { _tag: "note", ...at, topic: "rewind", ...rewoundNote(event.payload) }]
    case "output.structured": {
      const { attempts, value } = event.payload
      const text = `Structured output validated against the output schema${attempts === 1 ? "" : ` after ${attempts} answers`}`
      return [...seal(blocks), { _tag: "note", ...at, topic: "output", tone: "info", text, detail: JSON.stringify(value, null, 2) }]
    }
    case "session.mode_changed":
      return [...seal(blocks), { _tag: "note", ...at, topic: "mode", tone: "info", text: `mode: ${event.payload.mode} (set by ${event.payload.by})` }]
    case "session.model_changed":
      return [...seal(blocks), { _tag: "note", ...at, topic: "model", tone: "info", text: `model: ${event.payload.model} (set by ${event.payload.by})` }]
    case "context.compacted": {
      const { turns, tokensBefore, tokensAfter, summary, throughSequence, fromSequence, sections, changedFiles, pieces } = event.payload
      const from = fromSequence ?? 1
      const text = `Compacted ${turns.length} earlier turn(s) into a summary: events #${from}–#${throughSequence}, ${tokensBefore} → ${tokensAfter} tokens`
      const compaction: CompactionNote = {
        from,
        through: throughSequence,
        tokensBefore,
        tokensAfter,
        ...(pieces === undefined ? {} : { pieces }),
        ...(sections === undefined ? {} : { sections }),
        ...(changedFiles === undefined ? {} : { changedFiles }),
        replaced: blocks.filter((b) => b.sequence >= from && b.sequence <= throughSequence).map(blockLine)
      }
      return [...seal(blocks), { _tag: "note", ...at, topic: "compaction", tone: "info", text, detail: summary, compaction }]
    }
    case "memory.candidate_proposed": {
      const { candidateId, scope, text } = event.payload
      const candidate: CandidateNote = { id: candidateId, text, status: "pending" }
      return [...seal(blocks), { _tag: "note", ...at, topic: "memory", tone: "info", text: `Memory proposed (${scope}): ${text}`, candidate }]
    }
    case "memory.approved": {
      const { candidateId, by, text } = event.payload
      return [
        ...settle(seal(blocks), candidateId, "approved"),
        { _tag: "note", ...at, topic: "memory", tone: "info", text: `Memory approved by ${by}: ${text}` }
      ]
    }
    case "memory.rejected": {
      const { candidateId, by, reason } = event.payload
      const proposed = proposalOf(blocks, candidateId)
      const text = `Memory candidate rejected by ${by}${proposed === undefined ? "" : `: ${proposed}`}${reason === undefined ? "" : ` (${reason})`}`
      return [...settle(seal(blocks), candidateId, "rejected"), { _tag: "note", ...at, topic: "memory", tone: "info", text }]
    }
    case "memory.deleted":
      return [...seal(blocks), { _tag: "note", ...at, topic: "memory", tone: "info", text: `Memory deleted by ${event.payload.by}` }]
    case "skill.loaded":
      return [...seal(blocks), { _tag: "note", ...at, topic: "skill", tone: "info", text: `Skill loaded: ${event.payload.name}` }]
    case "permission.project_rules": {
      const { file, allowRules, opensNetwork, trusted, trustedBy, hooks } = event.payload
      if (allowRules === 0 && !opensNetwork && (hooks ?? 0) === 0) return blocks
      const widening = projectWidening(allowRules, opensNetwork, hooks)
      const text = trusted
        ? `Project rules ${file} trusted${trustedBy === undefined ? "" : ` by ${trustedBy}`}: ${widening} apply`
        : `Project rules ${file} are not trusted: ${widening} ignored until trusted`
      return [...seal(blocks), { _tag: "note", ...at, topic: "permissions", tone: trusted ? "info" : "warning", text }]
    }
    case "hook.ran": {
      const { decision, timedOut, exitCode, context, output } = event.payload
      const tone = timedOut || (exitCode !== 0 && exitCode !== 2) || decision === "deny" || decision === "block" ? "warning" : "info"
      const detail = [context === undefined ? "" : `Told the model:\n${context}`, output === "" ? "" : `Output:\n${output}`].filter((p) => p !== "").join("\n\n")
      return [...seal(blocks), { _tag: "note", ...at, topic: "hook", tone, text: hookSummary(event.payload), ...(detail === "" ? {} : { detail }) }]
    }
    case "subagent.started": {
      const { agent, childSessionId } = event.payload
      return [
        ...seal(blocks),
        // Its prompt is the `task` call's, shown there.
        { _tag: "note", ...at, topic: "subagent", tone: "info", text: `Subagent ${agent} started (session ${childSessionId})`, child: { sessionId: childSessionId, agent } }
      ]
    }
    case "subagent.completed": {
      const { agent, childSessionId, stopReason, usage, message, spend } = event.payload
      const tone = stopReason === "final" ? "info" : "warning"
      const cost = shownCost(spend)
      const text = `Subagent ${agent} ${stopReason === "final" ? "answered" : `stopped (${stopReason})`} · session ${childSessionId} · ${usage.inputTokens} in / ${usage.outputTokens} out tokens${cost === undefined ? "" : ` · ${cost}`}`
      // Its answer is the `task` call's result, shown there; only why it stopped is said here.
      return [...seal(blocks), { _tag: "note", ...at, topic: "subagent", tone, text, ...(message === undefined ? {} : { detail: message }) }]
    }
    case "mcp.notice": {
      const { server, state, message } = event.payload
      const tone = state === "failed" || state === "exited" ? "warning" : "info"
      return [
        ...seal(blocks),
        { _tag: "note", ...at, topic: "mcp", tone, text: `MCP server ${server}: ${state.replace("_", " ")}${message === undefined ? "" : ` (${message})`}` }
      ]
    }
    case "user.message":
      return [...seal(blocks), { _tag: "user", ...at, content: event.payload.content, mode: event.payload.mode }]
    case "model.delta":
      return appendStreamed(blocks, event, { _tag: "text", ...at, text: event.payload.text, streaming: true })
    case "model.thinking_delta":
      return appendStreamed(blocks, event, {
        _tag: "thinking",
        ...at,
        text: event.payload.text,
        redacted: event.payload.redacted !== undefined,
        streaming: true
      })
    case "model.tool_call_requested": {
      const { toolCallId, name, input } = event.payload
      return [...seal(blocks), { _tag: "tool", ...at, toolCallId, name, input, started: false, abandoned: false }]
    }
    case "model.completed":
      return seal(blocks)
    case "model.failed":
      return [...seal(blocks), { _tag: "failure", ...at, reason: event.payload.reason, code: event.payload.code }]
    case "permission.requested": {
      const { toolCallId, tool, risk, summary, detail, lasting } = event.payload
      const ask: Ask = {
        risk,
        summary,
        open: !isSettled(settled, event.sequence, toolCallId),
        ...(detail === undefined ? {} : { detail }),
        ...(lasting === undefined ? {} : { lasting })
      }
      return updateTool(blocks, event, toolCallId, tool, (t) => ({ ...t, ask }))
    }
    case "permission.resolved": {
      const { toolCallId, decision, scope, by, rule, reason, hook } = event.payload
      const permission: Decision = {
        decision,
        scope,
        by,
        ...(rule === undefined ? {} : { rule }),
        ...(reason === undefined ? {} : { reason }),
        ...(hook === undefined ? {} : { hook })
      }
      return updateTool(blocks, event, toolCallId, "tool", (t) => ({
        ...t,
        permission,
        ...(t.ask === undefined ? {} : { ask: { ...t.ask, open: false } })
      }))
    }
    case "plan.proposed": {
      const { toolCallId, plan } = event.payload
      return updateTool(blocks, event, toolCallId, PLAN_TOOL, (t) => ({ ...t, plan: { text: plan, open: !isSettled(settled, event.sequence, toolCallId) } }))
    }
    case "plan.resolved": {
      const { toolCallId, decision, by, mode, client, note, reason } = event.payload
      const resolution: PlanResolution = {
        decision,
        by,
        ...(mode === undefined ? {} : { mode }),
        ...(client === undefined ? {} : { client }),
        ...(note === undefined ? {} : { note }),
        ...(reason === undefined ? {} : { reason })
      }
      return updateTool(blocks, event, toolCallId, PLAN_TOOL, (t) => ({ ...t, plan: { text: t.plan?.text ?? "", open: false, resolution } }))
    }
    case "tool.started":
      return updateTool(blocks, event, event.payload.toolCallId, event.payload.name, (t) => ({ ...t, started: true }))
    case "tool.output":
      return updateTool(blocks, event, event.payload.toolCallId, "tool", (t) => ({ ...t, live: withLiveOutput(t.live, event.payload) }))
    case "tool.completed": {
      const { toolCallId, output, isError, durationMs, data } = event.payload
      const result: ToolOutcome = { output, isError, durationMs, ...(data === undefined ? {} : { data }) }
      // A command's result carries its output; a cancel's does not, so what ran before it stays.
      return updateTool(blocks, event, toolCallId, "tool", ({ live, ...t }) => ({ ...t, result, ...(live === undefined || data !== undefined ? {} : { live }) }))
    }
    case "turn.completed": {
      const { stopReason, errorCode, message } = event.payload
      const closed = closeTurn(seal(blocks), event.turnId)
      // A failed request that ended the turn is told once, by the turn's end.
      const last = closed.at(-1)
      const failure = stopReason === "error" && last?._tag === "failure" && last.turnId === event.turnId ? last : undefined
      return [
        ...(failure === undefined ? closed : closed.slice(0, -1)),
        {
          _tag: "turnEnd",
          ...at,
          stopReason,
          ...(errorCode === undefined ? {} : { errorCode }),
          ...(message === undefined ? {} : { message }),
          ...(failure === undefined ? {} : { failure: { reason: failure.reason, code: failure.code } })
        }
      ]
    }
  }
}

/** Applies one event; an event at or below the last applied sequence is ignored (a resume overlap). */
export const applyEvent = (state: TimelineState, event: AgentEvent): TimelineState => {
  if (event.sequence <= state.lastSequence) return state
  const next: TimelineState = {
    ...state,
    lastSequence: event.sequence,
    blocks: blocksAfter(state.blocks, event, state.settled),
    turns: statsAfter(state.turns, event),
    redo: redoAfter(state.redo, event)
  }
  switch (event.type) {
    case "session.created": {
      const { cwd, client, title, model } = event.payload
      const header: Header = {
        cwd,
        client,
        createdAt: event.timestamp,
        ...(title === undefined ? {} : { title }),
        ...(model === undefined ? {} : { model })
      }
      return { ...next, header }
    }
    case "inbox.updated":
      return { ...next, inbox: { nextTurn: event.payload.nextTurn, nextStep: event.payload.nextStep } }
    case "session.mode_changed":
      return { ...next, mode: event.payload.mode }
    case "session.model_changed":
      return next.header === undefined ? next : { ...next, header: { ...next.header, model: event.payload.model } }
    case "session.renamed":
      return next.header === undefined ? next : { ...next, header: { ...next.header, title: event.payload.title } }
    case "session.forked": {
      const forkedFrom: ForkedFrom = { sessionId: event.payload.sourceSessionId, atSequence: event.payload.atSequence }
      return next.header === undefined ? next : { ...next, header: { ...next.header, forkedFrom } }
    }
    case "conversation.rewound":
      return { ...next, rewinds: [...next.rewinds, { sequence: event.sequence, toSequence: event.payload.toSequence }] }
    case "task.updated":
      return { ...next, tasks: [...(next.tasks ?? []), { sequence: event.sequence, todos: event.payload.todos }] }
    default:
      return next
  }
}

/**
 * Applies one frame of a subscription. The baseline and status frames describe the session
 * now (running, queue); events carry the history and are applied once each by sequence.
 */
export const applyFrame = (state: TimelineState, frame: HostFrame): TimelineState => {
  switch (frame._tag) {
    case "Baseline": {
      const { cwd, client, createdAt, title, model, running, inbox, permissionMode, lastSequence, pendingPermissions } = frame.session
      const forkedFrom = state.header?.forkedFrom
      const header: Header = {
        cwd,
        client,
        createdAt,
        ...(title === undefined ? {} : { title }),
        ...(model === undefined ? {} : { model }),
        // Only the log says where a fork came from: the baseline keeps what it said.
        ...(forkedFrom === undefined ? {} : { forkedFrom })
      }
      const next = { ...state, header, running, inbox, mode: permissionMode }
      // A running session's questions settle through events; one that does not run holds none but those it lists.
      if (running) {
        const { settled: _, ...live } = next
        return live
      }
      const settled: Settled = { through: lastSequence, pending: pendingPermissions.map((p) => p.toolCallId) }
      return { ...next, settled, blocks: closeSettled(next.blocks, settled) }
    }
    case "Status":
      return { ...state, running: frame.running }
    case "Event":
      return applyEvent(state, frame.event)
    case "KeepAlive":
      // Only keeps an idle connection open.
      return state
  }
}

/** Closes the open questions a baseline says nobody waits on. */
const closeSettled = (blocks: ReadonlyArray<Block>, settled: Settled): ReadonlyArray<Block> =>
  blocks.map((b) => {
    if (b._tag !== "tool" || settled.pending.includes(b.toolCallId)) return b
    if (b.ask?.open === true) return { ...b, ask: { ...b.ask, open: false } }
    if (b.plan?.open === true) return { ...b, plan: { ...b.plan, open: false } }
    return b
  })

export const applyFrames = (state: TimelineState, frames: Iterable<HostFrame>): TimelineState => {
  let next = state
  for (const frame of frames) next = applyFrame(next, frame)
  return next
}

const clip = (text: string, max = 160) => {
  const line = text.replace(/\s+/g, " ").trim()
  return line.length > max ? `${line.slice(0, max - 1)}…` : line
}

/** One line for a block a compaction replaced. */
const blockLine = (block: Block): string => {
  const at = `#${block.sequence}`
  switch (block._tag) {
    case "user":
      return `${at} you: ${clip(block.content)}`
    case "text":
      return `${at} assistant: ${clip(block.text)}`
    case "thinking":
      return `${at} thought`
    case "tool": {
      const outcome = block.result === undefined ? "no result" : block.result.isError ? `error: ${clip(block.result.output, 80)}` : "ok"
      return `${at} ${block.name} ${clip(JSON.stringify(block.input ?? null), 100)} (${outcome})`
    }
    case "failure":
      return `${at} model failed (${block.code}): ${clip(block.reason)}`
    case "turnEnd":
      return `${at} turn ended (${block.stopReason}${block.failure === undefined ? "" : `: model failed (${block.failure.code}): ${clip(block.failure.reason)}`})`
    case "note":
      return `${at} ${clip(block.text)}`
  }
}

/** The task list in force: the last `task.updated` that the session's rewinds did not take back. */
export const currentTasks = (state: TimelineState): { readonly sequence: number; readonly todos: ReadonlyArray<TodoItem> } | undefined => {
  const held = conversationSpans(state.rewinds, state.lastSequence)
  return (state.tasks ?? []).filter((entry) => inSpans(held, entry.sequence)).at(-1)
}

/** Whether the session's last turn failed (its last turn end says `error`). */
export const lastTurnFailed = (state: TimelineState): boolean => state.blocks.findLast((b) => b._tag === "turnEnd")?.stopReason === "error"

/**
 * What "Retry" sends again: the prompt of the session's last turn, when that turn failed and
 * no prompt came since (the page offers it only then).
 */
export const retryablePrompt = (state: TimelineState): { readonly turnEnd: number; readonly content: string } | undefined => {
  const index = state.blocks.findLastIndex((b) => b._tag === "turnEnd" || b._tag === "user")
  const end = state.blocks[index]
  if (end?._tag !== "turnEnd" || end.stopReason !== "error" || end.turnId === undefined) return undefined
  const prompt = state.blocks.find((b) => b._tag === "user" && b.turnId === end.turnId)
  return prompt?._tag === "user" ? { turnEnd: end.sequence, content: prompt.content } : undefined
}

/** The permission questions (plans included) that still wait for an answer. */
export const openAsks = (state: TimelineState): ReadonlyArray<ToolBlock> =>
  state.blocks.flatMap((b) => (b._tag === "tool" && (b.ask?.open === true || b.plan?.open === true) ? [b] : []))

/**
 * The blocks that show events `from`..`to` (a memory's evidence): each block stands for the
 * events from its own sequence up to the next block's (the last one up to the last applied
 * event), so a range that starts inside a streamed answer still marks that answer.
 */
export const blocksInRange = (state: TimelineState, range: { readonly from: number; readonly to: number }): ReadonlySet<number> => {
  const marked = new Set<number>()
  state.blocks.forEach((block, index) => {
    const next = state.blocks[index + 1]
    const last = next === undefined ? state.lastSequence : next.sequence - 1
    if (block.sequence <= range.to && last >= range.from) marked.add(block.sequence)
  })
  return marked
}

/** The sequence of the newest memory note: it changes whenever the session's memory story does. */
export const lastMemoryNote = (state: TimelineState): number =>
  state.blocks.findLast((b) => b._tag === "note" && b.topic === "memory")?.sequence ?? 0
