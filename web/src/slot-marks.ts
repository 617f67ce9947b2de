import { inSpans, rewoundSpans } from "../../src/domain/rewound.js"
import type { TimelineState } from "./timeline.js"

/** What the page adds around a block: whether a rewind took it out, and the turn actions it carries. */
export interface SlotMarks {
  /** The block shows events a rewind took out of the conversation (dimmed, still shown). */
  readonly rewound: boolean
  /** The first block of a run of rewound ones: the run's "rewound" label goes here. */
  readonly firstRewound: boolean
  /** The prompt that starts turn N (1-based, in log order): "Rewind to here" goes back to before it. */
  readonly rewindTurn?: number
  /** The end of a turn: "Fork from here" forks at this sequence, the turn's last. */
  readonly forkAt?: number
}

/**
 * One entry per block of `state.blocks`. A rewound turn offers no actions: it is no longer the
 * conversation. The notes of rewinds and redos are never shown as rewound: they tell what a
 * person did, even when a later rewind or redo goes back past them.
 */
export const slotMarks = (state: TimelineState): ReadonlyArray<SlotMarks> => {
  const rewoundBy = rewoundSpans(state.rewinds, state.lastSequence)
  const turnNumbers = new Map(state.turns.map((turn, index) => [turn.turnId, index + 1]))
  const prompted = new Set<string>()
  let previousRewound = false
  return state.blocks.map((block) => {
    const rewound = !(block._tag === "note" && block.topic === "rewind") && inSpans(rewoundBy, block.sequence)
    const firstRewound = rewound && !previousRewound
    previousRewound = rewound
    const marks: SlotMarks = { rewound, firstRewound }
    const turn = block.turnId === undefined ? undefined : turnNumbers.get(block.turnId)
    if (rewound || block.turnId === undefined || turn === undefined) return marks
    if (block._tag === "user" && !prompted.has(block.turnId)) {
      prompted.add(block.turnId)
      return { ...marks, rewindTurn: turn }
    }
    return block._tag === "turnEnd" ? { ...marks, forkAt: block.sequence } : marks
  })
}
