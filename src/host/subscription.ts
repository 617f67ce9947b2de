import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { afterPendingIo } from "../core/mailbox-pull.js"
import type { EngineError } from "../domain/errors.js"
import type { AgentEvent } from "../domain/events.js"
import { type HostFrame, type SessionView, SubscriberLagged } from "../domain/host.js"
import type { Subscription } from "./fanout.js"

export interface SubscriptionSource {
  readonly sessionId: string
  readonly afterSequence: number
  readonly baseline: SessionView
  /** The stored events after `afterSequence`, as a pull (`Stream.toPull` of the store's replay). */
  readonly stored: Effect.Effect<Chunk.Chunk<AgentEvent>, Option.Option<EngineError>>
  /** Registered with the fan-out before the baseline and the stored events were read. */
  readonly live: Subscription
}

/**
 * A subscription as a pull: the baseline, then the stored events, then the live frames, each
 * event once and in order (overlap between the store and the buffer is skipped by sequence).
 * Fails with `SubscriberLagged` once the fan-out dropped this reader; it resumes from the last
 * sequence it got. A pull, not a chain of stream operators: a local `run` reads every event
 * of its turn through it.
 */
export const subscriptionPull = (source: SubscriptionSource): Effect.Effect<Chunk.Chunk<HostFrame>, Option.Option<EngineError | SubscriberLagged>> => {
  let phase: "baseline" | "stored" | "live" = "baseline"
  let last = source.afterSequence

  const fresh = (frames: Iterable<HostFrame>): Chunk.Chunk<HostFrame> => {
    const kept: Array<HostFrame> = []
    for (const frame of frames) {
      if (frame._tag === "Event") {
        if (frame.event.sequence <= last) continue
        last = frame.event.sequence
      }
      kept.push(frame)
    }
    return Chunk.unsafeFromArray(kept)
  }

  const takeLive = Effect.withScheduler(source.live.frames.takeAll, afterPendingIo)

  const pull: Effect.Effect<Chunk.Chunk<HostFrame>, Option.Option<EngineError | SubscriberLagged>> = Effect.suspend(() => {
    switch (phase) {
      case "baseline":
        phase = "stored"
        return Effect.succeed(Chunk.of<HostFrame>({ _tag: "Baseline", session: source.baseline }))
      case "stored":
        return Effect.matchEffect(source.stored, {
          onFailure: (error) => {
            if (Option.isSome(error)) return Effect.fail(error)
            phase = "live"
            return pull
          },
          onSuccess: (events) => {
            const frames = fresh(Chunk.map(events, (event): HostFrame => ({ _tag: "Event", event })))
            return Chunk.isEmpty(frames) ? pull : Effect.succeed(frames)
          }
        })
      case "live":
        return Effect.flatMap(Deferred.isDone(source.live.dropped), (dropped) =>
          dropped
            ? Effect.fail(Option.some(new SubscriberLagged({ sessionId: source.sessionId, lastSequence: last })))
            : Effect.flatMap(takeLive, ([taken, done]) => {
                // Shut down only when the subscription's scope closes: the reader is gone.
                if (done && Chunk.isEmpty(taken)) return Effect.fail(Option.none())
                const frames = fresh(taken)
                return Chunk.isEmpty(frames) ? pull : Effect.succeed(frames)
              })
        )
    }
  })
  return pull
}
