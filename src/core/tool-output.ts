import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
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

/**
 * The timing a turn's calls record by: `LIVE_OUTPUT_TIMING` unless the context sets another
 * (what is recorded depends on how fast a command writes; a golden transcript must not).
 */
export class LiveOutputTimingSetting extends Context.Reference<LiveOutputTimingSetting>()("custom-agent/LiveOutputTiming", {
  defaultValue: (): LiveOutputTiming => LIVE_OUTPUT_TIMING
}) {}

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
 * goes on and its result says the rest. A call that writes nothing costs no fiber and no timer.
 */
export const recordingOutput =
  (turn: Pick<CurrentTurnShape, "turnId" | "emitAll">, toolCallId: string, options: LiveOutputOptions = {}) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, ToolOutput>> =>
    Effect.flatMap(LiveOutputTimingSetting, (contextTiming) => {
      const timing = options.timing ?? contextTiming
      const output = new LiveOutput(options.limits ?? LIVE_OUTPUT_LIMITS)
      // Taking a record and committing it are one step: records are committed in the order taken.
      const lock = Effect.unsafeMakeSemaphore(1)
      let failed = false
      let ended = false
      let started: number | undefined
      let last = Number.NEGATIVE_INFINITY
      /** The fiber that records what is pending once it is due, while one is scheduled. */
      let flusher: Fiber.RuntimeFiber<void> | undefined

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

      /** Schedules the next record, unless one is scheduled, nothing is pending or recording is over. */
      const schedule: Effect.Effect<void> = Effect.suspend(() => {
        if (flusher !== undefined || ended || failed || !output.pending) return Effect.void
        return Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const due = Math.max((started ?? now) + timing.quietMs, last + (output.thinned ? timing.thinnedIntervalMs : timing.intervalMs))
          const flush = Effect.sleep(Duration.millis(Math.max(0, due - now))).pipe(
            Effect.zipRight(Clock.currentTimeMillis),
            Effect.flatMap((at) => {
              last = at
              return record
            }),
            Effect.ensuring(
              Effect.sync(() => {
                flusher = undefined
              })
            ),
            // What came while it was committed is the next record's.
            Effect.zipRight(Effect.suspend(() => schedule))
          )
          // Stopped when the call ends (below), so it never outlives it.
          flusher = yield* Effect.forkDaemon(flush)
        })
      })

      const service: ToolOutputShape = {
        write: (text) =>
          Effect.suspend(() => {
            output.add(text)
            return schedule
          })
      }
      const stop = Effect.suspend(() => {
        ended = true
        // A record being committed is let finish (it is uninterruptible), so it comes before the result.
        return flusher === undefined ? Effect.void : Fiber.interrupt(flusher)
      })
      return Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) => {
          started = now
          return Effect.provideService(effect, ToolOutput, service)
        }),
        Effect.onInterrupt(() => record),
        // Once something was recorded, the rest is too, so the live view ends where the output did;
        // a call over before its first record leaves its result to say it all.
        Effect.ensuring(Effect.zipRight(stop, Effect.suspend(() => (last === Number.NEGATIVE_INFINITY ? Effect.void : record))))
      )
    })
