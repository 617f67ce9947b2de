import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { pulledUntil } from "../../core/for-each-pulled.js"
import type { HostFrame } from "../../domain/host.js"
import type { SessionClient } from "./session-client.js"

/** Reconnections in a row before a dropped subscription is given up (about a minute of pauses), as `run` does. */
const maxReconnects = 15

const reconnectPause = (attempt: number) => Duration.millis(Math.min(250 * 2 ** (attempt - 1), 5_000))

export interface FollowHooks {
  /** One frame; true once following should stop. */
  readonly onFrame: (frame: HostFrame) => Effect.Effect<boolean>
  /** The connection dropped (`attempt` 1 first) or came back (`attempt` 0). */
  readonly onConnection: (attempt: number, lastSequence: number) => Effect.Effect<void>
}

/**
 * A session's frames from `after` on, for as long as the screen shows it: a reader that fell
 * behind resumes where it was; one whose connection dropped reconnects from its last event
 * after a pause that grows while it keeps failing (each frame is seen once).
 */
export const followSession = (client: SessionClient, sessionId: string, after: number, hooks: FollowHooks): Effect.Effect<void, unknown> => {
  let seen = after
  let drops = 0
  // No generator per frame: a resumed session's history is thousands of frames at once.
  const onFrame = (frame: HostFrame): Effect.Effect<boolean> =>
    Effect.suspend(() => {
      const back = drops > 0 ? hooks.onConnection(0, seen) : undefined
      drops = 0
      if (frame._tag === "Event") seen = frame.event.sequence
      return back === undefined ? hooks.onFrame(frame) : Effect.zipRight(back, hooks.onFrame(frame))
    })
  const follow = (from: number): Effect.Effect<void, unknown> =>
    pulledUntil(client.subscribe(sessionId, from), onFrame).pipe(
      Effect.catchAll((error) => {
        if (client.isLagged(error)) return Effect.suspend(() => follow(seen))
        if (!client.isDropped(error) || drops >= maxReconnects) return Effect.fail(error)
        drops++
        return hooks.onConnection(drops, seen).pipe(
          Effect.zipRight(Effect.sleep(reconnectPause(drops))),
          Effect.zipRight(Effect.suspend(() => follow(seen)))
        )
      })
    )
  return follow(after)
}
