import { Schema } from "effect"
import { NotKept } from "../../src/domain/checkpoints.js"
import type { AgentEvent, PayloadOf } from "../../src/domain/events.js"
import { addSpend, noSpend, Spend, sumSpend } from "../../src/domain/spend.js"

/**
 * What a turn cost and did, summed from its events: when it started and ended, the tokens and
 * the spend of its model steps and of its subagents, the files its edits changed, each with
 * the tool calls whose diffs show the change, and what its checkpoints recorded.
 */
export const TurnUsage = Schema.Struct({
  input: Schema.Finite,
  output: Schema.Finite,
  cacheRead: Schema.Finite,
  cacheWrite: Schema.Finite
})
export type TurnUsage = typeof TurnUsage.Type

export const ChangedFile = Schema.Struct({ path: Schema.String, toolCallIds: Schema.Array(Schema.String) })
export type ChangedFile = typeof ChangedFile.Type

/** What the turn's checkpoints recorded: the files they saw changed, each once, and the files they could not keep. */
export const TurnCheckpoint = Schema.Struct({ changed: Schema.Array(Schema.String), notKept: Schema.Array(NotKept) })
export type TurnCheckpoint = typeof TurnCheckpoint.Type

export const TurnStats = Schema.Struct({
  turnId: Schema.String,
  startedAt: Schema.String,
  endedAt: Schema.optional(Schema.String),
  usage: TurnUsage,
  /** What the turn's requests (its summaries' too) and its subagents' spent; absent until the first `model.completed` or a `subagent.completed` with a spend. */
  cost: Schema.optional(Spend),
  files: Schema.Array(ChangedFile),
  /** Absent until the turn records a checkpoint (a turn whose tools changed nothing may record none). */
  checkpoint: Schema.optional(TurnCheckpoint)
})
export type TurnStats = typeof TurnStats.Type

const noUsage: TurnUsage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }

/** Updates the turn an event belongs to (created if the view never saw it start); other turns keep their identity. */
const updateTurn = (turns: ReadonlyArray<TurnStats>, event: AgentEvent, update: (turn: TurnStats) => TurnStats): ReadonlyArray<TurnStats> => {
  const turnId = event.turnId
  if (turnId === undefined) return turns
  const index = turns.findLastIndex((t) => t.turnId === turnId)
  const found = turns[index]
  if (found === undefined) return [...turns, update({ turnId, startedAt: event.timestamp, usage: noUsage, files: [] })]
  return turns.map((t, i) => (i === index ? update(found) : t))
}

const withChange = (files: ReadonlyArray<ChangedFile>, path: string, toolCallId: string): ReadonlyArray<ChangedFile> =>
  files.some((f) => f.path === path)
    ? files.map((f) => (f.path === path ? { path, toolCallIds: [...f.toolCallIds, toolCallId] } : f))
    : [...files, { path, toolCallIds: [toolCallId] }]

const union = <A>(items: ReadonlyArray<A>, more: ReadonlyArray<A>, key: (a: A) => string): ReadonlyArray<A> => {
  const seen = new Set(items.map(key))
  return [...items, ...more.filter((item) => !seen.has(key(item)))]
}

const withCheckpoint = (checkpoint: TurnCheckpoint | undefined, payload: PayloadOf<"checkpoint.recorded">): TurnCheckpoint => ({
  changed: union(checkpoint?.changed ?? [], payload.changed, (path) => path),
  notKept: union(checkpoint?.notKept ?? [], payload.notKept, (file) => file.path)
})

const withUsage = (usage: TurnStats["usage"], added: PayloadOf<"model.completed">["usage"]): TurnStats["usage"] => ({
  input: usage.input + added.inputTokens,
  output: usage.output + added.outputTokens,
  cacheRead: usage.cacheRead + (added.cacheReadTokens ?? 0),
  cacheWrite: usage.cacheWrite + (added.cacheWriteTokens ?? 0)
})

export const statsAfter = (turns: ReadonlyArray<TurnStats>, event: AgentEvent): ReadonlyArray<TurnStats> => {
  switch (event.type) {
    case "turn.started":
      return updateTurn(turns, event, (t) => ({ ...t, startedAt: event.timestamp }))
    // A subagent's tokens and spend (its own and its children's) count into the turn that delegated.
    case "subagent.completed":
      return updateTurn(turns, event, (t) => ({
        ...t,
        usage: withUsage(t.usage, event.payload.usage),
        ...(event.payload.spend === undefined ? {} : { cost: addSpend(t.cost ?? noSpend, event) })
      }))
    case "model.completed":
      return updateTurn(turns, event, (t) => ({ ...t, cost: addSpend(t.cost ?? noSpend, event), usage: withUsage(t.usage, event.payload.usage) }))
    // A summary made while a turn built a request (recorded outside any turn) is part of what that turn cost.
    case "context.compacted": {
      const open = turns.at(-1)
      if (event.payload.spend === undefined || open === undefined || open.endedAt !== undefined) return turns
      return [...turns.slice(0, -1), { ...open, cost: addSpend(open.cost ?? noSpend, event) }]
    }
    case "tool.completed": {
      const { data, isError, toolCallId } = event.payload
      if (data?._tag !== "edit" || isError) return turns
      return updateTurn(turns, event, (t) => ({ ...t, files: withChange(t.files, data.path, toolCallId) }))
    }
    case "checkpoint.recorded":
      return updateTurn(turns, event, (t) => ({ ...t, checkpoint: withCheckpoint(t.checkpoint, event.payload) }))
    case "turn.completed":
      return updateTurn(turns, event, (t) => ({ ...t, endedAt: event.timestamp }))
    default:
      return turns
  }
}

/** "850 ms", "3.2 s", "2 min 5 s", "1 h 3 min". */
export const formatDuration = (ms: number): string => {
  if (ms < 1_000) return `${Math.max(0, Math.round(ms))} ms`
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`
  const seconds = Math.round(ms / 1_000)
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min ${seconds % 60} s`
  return `${Math.floor(seconds / 3_600)} h ${Math.floor((seconds % 3_600) / 60)} min`
}

const count = (n: number) => Math.round(n).toLocaleString("en-US")

/** The token counts worth showing: input and output always, the cache only when it was used. */
export const formatUsage = (usage: TurnUsage): string =>
  [
    `${count(usage.input)} in`,
    `${count(usage.output)} out`,
    ...(usage.cacheRead > 0 ? [`${count(usage.cacheRead)} cache read`] : []),
    ...(usage.cacheWrite > 0 ? [`${count(usage.cacheWrite)} cache write`] : [])
  ].join(" · ")

/** The session's spend so far: its turns' summed; undefined before any. */
export const sessionCost = (turns: ReadonlyArray<TurnStats>): Spend | undefined =>
  turns.reduce<Spend | undefined>((sum, turn) => (turn.cost === undefined ? sum : sumSpend(sum ?? noSpend, turn.cost)), undefined)

/** How long the turn took; undefined while it runs (or when its times cannot be read). */
export const durationOf = (turn: TurnStats): number | undefined => {
  if (turn.endedAt === undefined) return undefined
  const ms = Date.parse(turn.endedAt) - Date.parse(turn.startedAt)
  return Number.isFinite(ms) ? ms : undefined
}

const reasons: Record<NotKept["reason"], string> = {
  file_too_large: "over the size cap per file",
  snapshot_too_large: "past the size cap per snapshot",
  unreadable: "not readable by the agent"
}

/** "1.5 MB", "320 KB", "12 B". */
export const formatBytes = (bytes: number): string => {
  if (bytes < 1_024) return `${Math.round(bytes)} B`
  if (bytes < 1_024 * 1_024) return `${Math.round(bytes / 1_024)} KB`
  return `${(bytes / (1_024 * 1_024)).toFixed(1)} MB`
}

/** "big.bin (12.0 MB, over the size cap per file)": a file a checkpoint could not keep, so a rewind cannot restore it. */
export const formatNotKept = (file: NotKept): string => `${file.path} (${formatBytes(file.bytes)}, ${reasons[file.reason]})`

/** The id of a tool call's block in the page, for links to its diff. */
export const toolAnchor = (toolCallId: string): string => `tool-${toolCallId}`
