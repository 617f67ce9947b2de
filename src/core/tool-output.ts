import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import { ToolOutput, type ToolOutputShape } from "../services/ToolOutput.js"
import type { CurrentTurnShape } from "./current-turn.js"
import { LIVE_OUTPUT_LIMITS, LiveOutput, type LiveOutputLimits } from "./live-output.js"

/** When a running call's output is recorded. */
export interface LiveOutputTiming {
  /** Nothing is recorded in a call's first this many ms: a quick call's result says it all, and its log stays as it was. */
  readonly quietMs: number
  /** At most one record per this many ms while the output is recorded whole. */
  readonly intervalMs: number
  /** At most one per this many ms once it is past that, in tails. */
  readonly thinnedIntervalMs: number
}

export const LIVE_OUTPUT_TIMING: LiveOutputTiming = { quietMs: 500, intervalMs: 200, thinnedIntervalMs: 2000 }

export interface LiveOutputOptions {
  readonly limits?: LiveOutputLimits
  readonly timing?: LiveOutputTiming
}

/**
 * Runs a call's effect with `ToolOutput` provided: what the tool writes there is recorded as
 * the call's `tool.output` events through the turn's commit path, coalesced (at most one record
 * per interval, none in the call's first moments) and bounded (`live-output.ts`). A cancel
 * records what was still pending, so the log shows what ran before it. Every record is committed
 * before the effect's result is returned, so the call's `tool.completed` comes after them. A
 * record that cannot be committed (the store failed) ends the recording with a warning; the call
 * goes on and its result says the rest.
 */
export const recordingOutput =
  (turn: Pick<CurrentTurnShape, "turnId" | "emitAll">, toolCallId: string, options: LiveOutputOptions = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, ToolOutput>> =>
    Effect.gen(function* () {
      const timing = options.timing ?? LIVE_OUTPUT_TIMING
      const output = new LiveOutput(options.limits ?? LIVE_OUTPUT_LIMITS)
      const wake = yield* Queue.sliding<void>(1)
      // Taking a record and committing it are one step: records are committed in the order taken.
      const lock = yield* Effect.makeSemaphore(1)
      let failed = false
      const record = lock.withPermits(1)(
        Effect.suspend(() => {
          const records = failed ? [] : output.take()
          return turn.emitAll(records.map((payload) => ({ type: "tool.output" as const, turnId: turn.turnId, payload: { toolCallId, ...payload } })))
        })
      ).pipe(
        Effect.catchAll((error) =>
          Effect.zipRight(
            Effect.sync(() => {
              failed = true
            }),
            Effect.logWarning(`the live output of call ${toolCallId} is no longer recorded; its result keeps it`, error)
          )
        ),
        Effect.uninterruptible
      )
      const started = yield* Clock.currentTimeMillis
      let last = Number.NEGATIVE_INFINITY
      const recorder = Effect.gen(function* () {
        while (!output.capped && !failed) {
          yield* Queue.take(wake)
          const now = yield* Clock.currentTimeMillis
          const due = Math.max(started + timing.quietMs, last + (output.thinned ? timing.thinnedIntervalMs : timing.intervalMs))
          if (due > now) yield* Effect.sleep(Duration.millis(due - now))
          last = yield* Clock.currentTimeMillis
          yield* record
        }
      })
      const service: ToolOutputShape = {
        write: (text) =>
          Effect.sync(() => {
            if (output.add(text)) Queue.unsafeOffer(wake, undefined)
          })
      }
      return yield* Effect.scoped(
        Effect.zipRight(
          Effect.forkScoped(recorder),
          Effect.provideService(effect, ToolOutput, service).pipe(Effect.onInterrupt(() => record))
        )
      )
    })
