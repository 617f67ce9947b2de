import type { EventOf } from "../domain/events.js"

/** A list of paths on one line, for a note. */
const pathList = (paths: ReadonlyArray<string>): string => (paths.length === 0 ? "nothing needed changing" : paths.join(", "))

/**
 * What a rewind, redo or fork says to an editor: ACP has no update for them, so a short agent
 * message tells the reader why the history they see is not all the conversation the model has.
 */
export const sessionNote = (event: EventOf<"checkpoint.restored" | "conversation.rewound" | "session.forked">): string => {
  switch (event.type) {
    case "checkpoint.restored": {
      const { redo, by, checkpointSequence, paths } = event.payload
      return `${redo ? "Redo" : "Rewind"} by ${by}: files restored from the checkpoint at event ${checkpointSequence}: ${pathList(paths)}.`
    }
    case "conversation.rewound": {
      const { redo, by, toSequence } = event.payload
      return redo
        ? `Redo by ${by}: the conversation is back as it was at event ${toSequence}.`
        : `Rewind by ${by}: the conversation goes on from event ${toSequence}; what came after it is no longer part of it.`
    }
    case "session.forked": {
      const { sourceSessionId, atSequence } = event.payload
      return `Forked from session ${sourceSessionId} at event ${atSequence}.`
    }
  }
}
