import type { AgentEvent } from "../domain/events.js"
import type { Span } from "../domain/rewound.js"
import type { Segment } from "./render.js"
import { dimAll, term, terminalString } from "./terminal-text.js"

/**
 * `sessions show`'s marks for the parts of the conversation a rewind left out: a line where one
 * starts and where it ends, and its events dimmed (on a terminal that wants colour). The log
 * keeps them; later model requests do not carry them.
 */
export const markRewound = (spans: ReadonlyArray<Span>, color: boolean) => {
  let current: Span | undefined
  let atLineStart = true
  const mark = (text: string): Segment => ({ channel: "out", text: term`${atLineStart ? "" : "\n"}${dimAll(color, text)}\n` })
  // A segment's own colours end in a reset: dimming starts again after each one.
  const dimmed = (segment: Segment): Segment => ({ ...segment, text: dimAll(color, segment.text) })

  return (event: AgentEvent, segments: ReadonlyArray<Segment>): ReadonlyArray<Segment> => {
    const out: Array<Segment> = []
    if (current !== undefined && event.sequence > current.to) {
      out.push(mark(`┄┄ end of the rewound part ┄┄`))
      atLineStart = true
      current = undefined
    }
    const starting = current === undefined ? spans.find((span) => span.from === event.sequence) : undefined
    if (starting !== undefined) {
      out.push(mark(`┄┄ rewound: events #${starting.from}–#${starting.to} are no longer part of the conversation ┄┄`))
      atLineStart = true
      current = starting
    }
    for (const segment of segments) {
      out.push(current === undefined ? segment : dimmed(segment))
      const text = terminalString(segment.text)
      if (segment.channel === "out" && text.length > 0) atLineStart = text.endsWith("\n")
    }
    return out
  }
}
