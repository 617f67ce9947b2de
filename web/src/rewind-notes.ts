import type { PayloadOf } from "../../src/domain/events.js"

/** What a rewind's note says: one line, and the whole list of paths on demand when it is long. */
export interface RewindNote {
  readonly tone: "info" | "warning"
  readonly text: string
  readonly detail?: string
}

const listed = 8

/** A few paths on the line; the rest are counted (and all of them are in the note's detail). */
const pathList = (paths: ReadonlyArray<string>): string =>
  paths.length <= listed ? paths.join(", ") : `${paths.slice(0, listed).join(", ")} and ${paths.length - listed} more`

export const restoredNote = (payload: PayloadOf<"checkpoint.restored">): RewindNote => {
  const { paths, drift, forced, by, redo, checkpointSequence } = payload
  const what = redo ? `Redo by ${by}: files put back as they were at event ${checkpointSequence}` : `Files rewound by ${by} to the checkpoint at event ${checkpointSequence}`
  const changed = paths.length === 0 ? "nothing needed changing" : `restored ${pathList(paths)}`
  // Forced past drift: changes made outside the agent were overwritten, which deserves a second look.
  const overwritten = forced && drift.length > 0 ? ` (overwrote changes made outside the agent: ${pathList(drift)})` : ""
  const text = `${what}: ${changed}${overwritten}`
  const long = paths.length > listed || drift.length > listed
  return {
    tone: overwritten === "" ? "info" : "warning",
    text,
    ...(long ? { detail: [...paths, ...(drift.length > 0 ? ["", "drift:", ...drift] : [])].join("\n") } : {})
  }
}

export const rewoundNote = (payload: PayloadOf<"conversation.rewound">): RewindNote => ({
  tone: "info",
  text: payload.redo
    ? `Redo by ${payload.by}: the conversation is back as it was at event ${payload.toSequence}`
    : `Conversation rewound by ${payload.by} to event ${payload.toSequence}: what followed stays in the log, shown as rewound`
})
