import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { HostFrame } from "../domain/host.js"
import { showInvisible } from "../domain/visible-text.js"
import type { Notice } from "../services/Notifier.js"

/** What a session's frame says of its questions: one raised, or none left waiting. */
export type QuestionChange =
  | { readonly _tag: "Asked"; readonly sessionId: string; readonly tool: string; readonly summary: string }
  | { readonly _tag: "Settled"; readonly sessionId: string }

/** The question change a frame of the fan-out carries, if it carries one. */
export const questionChange = (sessionId: string, frame: HostFrame): QuestionChange | undefined => {
  if (frame._tag === "Status") return frame.running ? undefined : { _tag: "Settled", sessionId }
  if (frame._tag !== "Event") return undefined
  const event = frame.event
  if (event.type === "permission.requested") return { _tag: "Asked", sessionId, tool: event.payload.tool, summary: event.payload.summary }
  if (event.type === "permission.resolved" || event.type === "turn.completed") return { _tag: "Settled", sessionId }
  return undefined
}

/** Longest summary a notice carries: a notification shows a line, not a page. */
const SUMMARY_MAX = 80

/** One line of plain text: every control and invisible character shown by name, cut to `max` characters. */
const plainLine = (text: string, max: number) => {
  const shown = [...showInvisible(text.replace(/\s+/g, " ").trim())]
  return shown.length <= max ? shown.join("") : `${shown.slice(0, max - 1).join("")}…`
}

/** What the notice says of a question nobody sees. */
export const waitingNotice = (asked: Extract<QuestionChange, { _tag: "Asked" }>): Notice => ({
  title: "custom-agent: a session waits for an answer",
  body: `${plainLine(asked.tool, 40)}: ${plainLine(asked.summary, SUMMARY_MAX)} (custom-agent attach ${asked.sessionId})`
})

export interface WaitingWatch {
  /** The host's own sessions' question changes, as its fan-out hears them. */
  readonly changes: Stream.Stream<QuestionChange>
  /** How many clients follow the session now: a session someone follows rings their terminal instead. */
  readonly followers: (sessionId: string) => Effect.Effect<number>
  /** Read at each notice, so the switch in settings holds without a restart. */
  readonly enabled: Effect.Effect<boolean>
  readonly notify: (notice: Notice) => Effect.Effect<void>
}

/**
 * Raises a notice when a session starts waiting for an answer while no client follows it (a
 * turn left running with `run --bg`, or by a terminal that closed): once per wait, so the
 * questions of one turn asked one after another while the first still waits make one notice.
 * Each notice is sent in a fiber of its own, so a slow notifier never holds up the watch.
 */
export const watchWaiting = (watch: WaitingWatch): Effect.Effect<void> =>
  Effect.gen(function* () {
    const waiting = new Set<string>()
    yield* Stream.runForEach(watch.changes, (change) =>
      Effect.gen(function* () {
        if (change._tag === "Settled") {
          waiting.delete(change.sessionId)
          return
        }
        if (waiting.has(change.sessionId)) return
        waiting.add(change.sessionId)
        if ((yield* watch.followers(change.sessionId)) > 0 || !(yield* watch.enabled)) return
        yield* Effect.forkDaemon(watch.notify(waitingNotice(change)))
      })
    )
  }).pipe(Effect.catchAllCause(() => Effect.void))
