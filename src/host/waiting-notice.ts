import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { SessionListFrame, SessionListItem } from "../domain/host.js"
import { showInvisible } from "../domain/visible-text.js"
import type { Notice } from "../services/Notifier.js"

const waiting = (item: SessionListItem) => item.status === "running" && (item.waitingQuestions ?? 0) > 0

/** Longest title a notice carries: a notification shows a line, not a page. */
const TITLE_MAX = 80

/** One line of plain text: every control and invisible character shown by name, cut to `max` characters. */
const plainLine = (text: string, max: number) => {
  const shown = [...showInvisible(text.replace(/\s+/g, " ").trim())]
  return shown.length <= max ? shown.join("") : `${shown.slice(0, max - 1).join("")}…`
}

/** What the notice says of a session that waits for an answer. */
export const waitingNotice = (item: SessionListItem): Notice => ({
  title: "custom-agent: a session waits for an answer",
  body: `${item.title === undefined ? item.sessionId : `${plainLine(item.title, TITLE_MAX)} (${item.sessionId})`}: custom-agent attach ${item.sessionId}`
})

export interface WaitingWatch {
  /** The host's session list as it changes (`WatchSessions`). */
  readonly frames: Stream.Stream<SessionListFrame, unknown>
  /** How many clients follow the session now: a session someone follows rings their terminal instead. */
  readonly followers: (sessionId: string) => Effect.Effect<number>
  /** Read at each notice, so the switch in settings holds without a restart. */
  readonly enabled: Effect.Effect<boolean>
  readonly notify: (notice: Notice) => Effect.Effect<void>
}

/**
 * Raises a notice each time a session starts waiting for an answer while no client follows it
 * (a turn left running with `run --bg`, or by a terminal that closed). Those waiting when the
 * watch starts are news too: nobody was told of them. Each notice is sent in a fiber of its
 * own, so a slow notifier never holds up the watch; the watch ends with its scope.
 */
export const watchWaiting = (watch: WaitingWatch): Effect.Effect<void> =>
  Effect.gen(function* () {
    const wasWaiting = new Set<string>()
    const seen = (item: SessionListItem) =>
      Effect.gen(function* () {
        if (!waiting(item)) {
          wasWaiting.delete(item.sessionId)
          return
        }
        if (wasWaiting.has(item.sessionId)) return
        wasWaiting.add(item.sessionId)
        if ((yield* watch.followers(item.sessionId)) > 0 || !(yield* watch.enabled)) return
        yield* Effect.forkDaemon(watch.notify(waitingNotice(item)))
      })
    yield* Stream.runForEach(watch.frames, (frame) => {
      switch (frame._tag) {
        case "Snapshot":
          return Effect.forEach(frame.sessions, seen, { discard: true })
        case "Updated":
          return seen(frame.session)
        case "Removed":
          return Effect.sync(() => wasWaiting.delete(frame.sessionId))
        case "KeepAlive":
          return Effect.void
      }
    })
  }).pipe(Effect.catchAllCause(() => Effect.void))
