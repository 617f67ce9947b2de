import { decodeEventJson } from "../../src/domain/decode.js"
import type { AgentEvent, EventOf, EventType } from "../../src/domain/events.js"

/** The events of one type, typed as such. */
export const eventsOf = <T extends EventType>(events: ReadonlyArray<AgentEvent>, type: T): ReadonlyArray<EventOf<T>> =>
  events.filter((e): e is EventOf<T> => e.type === type)

/** Events from NDJSON (an export, `--json` output), each line decoded; a bad line throws, naming its number. */
export const parseEventLines = (ndjson: string): Array<AgentEvent> =>
  ndjson
    .trim()
    .split("\n")
    .map((line, i) => {
      const decoded = decodeEventJson(line, i + 1)
      if (decoded._tag === "Left") throw new Error(decoded.left.message)
      return decoded.right
    })
