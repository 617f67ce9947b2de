import type { AgentEvent } from "./events.js"

/** What tells one person's rewind or redo from the next: an event of it, where and by whom. */
export interface RewindEventMark {
  readonly sequence: number
  readonly timestamp: string
  readonly by: string
  readonly redo: boolean
}

/**
 * One rewind or redo is committed as one append: its events are adjacent and share the
 * timestamp, the client and the redo flag. That is how the log tells one person's action.
 */
export const sameRewindAction = (last: RewindEventMark | undefined, mark: RewindEventMark): boolean =>
  last !== undefined && last.sequence === mark.sequence - 1 && last.timestamp === mark.timestamp && last.by === mark.by && last.redo === mark.redo

/** A `conversation.rewound`: at `sequence`, the conversation went back to how it was right after `toSequence`. */
export interface Rewind {
  readonly sequence: number
  readonly toSequence: number
}

/** Sequences `from` to `to`, both included. */
export interface Span {
  readonly from: number
  readonly to: number
}

/**
 * Which events make up the conversation right after the event at `at`, given the session's
 * rewinds in log order: ascending spans of sequences. A rewind brings back the conversation as
 * it was at its `toSequence` (with the rewinds before that point, not the later ones), then
 * adds what follows the rewind itself.
 */
export const conversationSpans = (rewinds: ReadonlyArray<Rewind>, at: number): ReadonlyArray<Span> => {
  const spans: Array<Span> = []
  let end = at
  let i = rewinds.length - 1
  for (;;) {
    while (i >= 0 && (rewinds[i]?.sequence ?? 0) > end) i--
    const rewind = rewinds[i]
    if (rewind === undefined) break
    spans.push({ from: rewind.sequence, to: end })
    // A rewind always goes back (the engine writes none other); a log that says otherwise is cut there.
    end = Math.min(rewind.toSequence, rewind.sequence - 1)
    i--
  }
  if (end >= 1) spans.push({ from: 1, to: end })
  return spans.reverse()
}

export const rewindsOf = (events: Iterable<AgentEvent>): ReadonlyArray<Rewind> => {
  const rewinds: Array<Rewind> = []
  for (const event of events) {
    if (event.type === "conversation.rewound") rewinds.push({ sequence: event.sequence, toSequence: event.payload.toSequence })
  }
  return rewinds
}

/**
 * The events a session's conversation no longer holds after its last event `lastSequence`:
 * the spans later model requests leave out, shown as rewound (the log keeps them).
 */
export const rewoundSpans = (rewinds: ReadonlyArray<Rewind>, lastSequence: number): ReadonlyArray<Span> => {
  const rewound: Array<Span> = []
  let next = 1
  for (const span of conversationSpans(rewinds, lastSequence)) {
    if (span.from > next) rewound.push({ from: next, to: span.from - 1 })
    next = span.to + 1
  }
  return rewound
}

/** Whether `sequence` falls in one of the ascending `spans`. */
export const inSpans = (spans: ReadonlyArray<Span>, sequence: number): boolean => spans.some((span) => span.from <= sequence && sequence <= span.to)
