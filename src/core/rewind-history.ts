import type { AgentEvent } from "../domain/events.js"
import { type RewindEventMark, sameRewindAction } from "../domain/rewound.js"

/** A `checkpoint.recorded`: its sequence and tree. */
export interface CheckpointRef {
  readonly sequence: number
  readonly treeId: string
}

/** Paths a restore put back from another checkpoint's tree. */
export interface Overlay extends CheckpointRef {
  readonly paths: ReadonlyArray<string>
}

/**
 * The workspace's files as the log says they are: a checkpoint's tree, with the paths later
 * restores put back from other trees on top (the last one naming a path holds it).
 */
export interface FileState {
  readonly base: CheckpointRef
  readonly overlays: ReadonlyArray<Overlay>
}

interface TurnMarks {
  readonly start: number
  end: number | undefined
  /** The turn's first `after_tools` checkpoint: its first step that changed the workspace had ended there. */
  firstAfterTools: number | undefined
}

/** A rewind a redo can still undo: where its events start, and what it changed. */
export interface RewindAction {
  readonly sequence: number
  /** The files before it, when it restored files. */
  filesBefore: FileState | undefined
  conversation: boolean
}

/** What rewinds and redos need of a session's log, folded from it on demand (they are rare). */
export interface RewindHistory {
  readonly turns: Array<TurnMarks>
  /** The files after each event that changed them (a checkpoint, a restore), in log order. */
  readonly fileStates: Array<{ readonly sequence: number; readonly files: FileState }>
  /** Rewinds not undone by a redo, oldest first. */
  readonly actions: Array<RewindAction>
  lastSequence: number
  /** The last event, when it belonged to a rewind or a redo. */
  last: RewindEventMark | undefined
}

export const emptyRewindHistory = (): RewindHistory => ({ turns: [], fileStates: [], actions: [], lastSequence: 0, last: undefined })

/** The files as the log says they are now; none before the session's first checkpoint. */
export const currentFiles = (history: RewindHistory): FileState | undefined => history.fileStates.at(-1)?.files

/** The files as they were right after the event at `sequence`. */
export const filesAt = (history: RewindHistory, sequence: number): FileState | undefined =>
  history.fileStates.findLast((entry) => entry.sequence <= sequence)?.files

const overlay = (files: FileState | undefined, restored: Overlay): FileState => {
  if (files === undefined) return { base: { sequence: restored.sequence, treeId: restored.treeId }, overlays: [] }
  if (restored.paths.length === 0) return files
  return { base: files.base, overlays: [...files.overlays, restored] }
}

/** The action this rewind or redo event belongs to: a new one for a rewind's first event, the undone one for a redo's. */
const actionOf = (history: RewindHistory, mark: RewindEventMark): RewindAction | undefined => {
  const continues = sameRewindAction(history.last, mark)
  history.last = mark
  if (mark.redo) return continues ? undefined : history.actions.pop()
  if (!continues) history.actions.push({ sequence: mark.sequence, filesBefore: undefined, conversation: false })
  return history.actions.at(-1)
}

export const addEvent = (history: RewindHistory, event: AgentEvent): RewindHistory => {
  history.lastSequence = event.sequence
  switch (event.type) {
    case "turn.started":
      history.turns.push({ start: event.sequence, end: undefined, firstAfterTools: undefined })
      break
    case "turn.completed": {
      const turn = history.turns.at(-1)
      if (turn !== undefined) turn.end = event.sequence
      break
    }
    case "checkpoint.recorded": {
      const turn = history.turns.at(-1)
      if (event.payload.trigger === "after_tools" && turn !== undefined && turn.end === undefined) turn.firstAfterTools ??= event.sequence
      history.fileStates.push({ sequence: event.sequence, files: { base: { sequence: event.sequence, treeId: event.payload.treeId }, overlays: [] } })
      break
    }
    case "checkpoint.restored": {
      const { by, redo } = event.payload
      const action = actionOf(history, { sequence: event.sequence, timestamp: event.timestamp, by, redo })
      const before = currentFiles(history)
      if (!redo && action !== undefined && action.filesBefore === undefined) action.filesBefore = before
      // Drifted paths were overwritten too: they now hold the tree's version as well.
      const paths = [...new Set([...event.payload.paths, ...event.payload.drift])]
      history.fileStates.push({
        sequence: event.sequence,
        files: overlay(before, { sequence: event.payload.checkpointSequence, treeId: event.payload.treeId, paths })
      })
      break
    }
    case "conversation.rewound": {
      const { by, redo } = event.payload
      const action = actionOf(history, { sequence: event.sequence, timestamp: event.timestamp, by, redo })
      if (!redo && action !== undefined) action.conversation = true
      break
    }
    default:
      break
  }
  if (event.type !== "checkpoint.restored" && event.type !== "conversation.rewound") history.last = undefined
  return history
}
