import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, TestClock } from "effect"
import { recordingOutput } from "../../src/core/tool-output.js"
import type { Draft } from "../../src/core/session-actor.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { StoreFailure } from "../../src/domain/errors.js"
import { ToolOutput } from "../../src/services/ToolOutput.js"

const timing = { quietMs: 500, intervalMs: 200, thinnedIntervalMs: 2000 }

/** A turn whose commit path keeps the payloads of what it is given (or fails, when told to). */
const fakeTurn = (fail = false) => {
  const committed: Array<unknown> = []
  return {
    committed,
    turn: {
      turnId: "turn_1",
      emitAll: (drafts: ReadonlyArray<Draft>) =>
        fail && drafts.length > 0
          ? Effect.fail(new StoreFailure({ operation: "append", reason: "disk full" }))
          : Effect.sync(() => {
              for (const draft of drafts) committed.push(draft.type === "tool.output" ? draft.payload : draft)
              return [] as ReadonlyArray<AgentEvent>
            })
    }
  }
}

const write = (text: string) => Effect.flatMap(ToolOutput, (output) => output.write(text))

/** Lets the recorder's fiber run what the clock just woke. */
const settle = Effect.repeatN(Effect.yieldNow(), 20)

describe("a running call's output recorded as it goes", () => {
  it.effect("nothing in the call's first moments, then what came so far as one record", () =>
    Effect.gen(function* () {
      const { committed, turn } = fakeTurn()
      const finish = yield* Deferred.make<void>()
      const call = Effect.gen(function* () {
        yield* write("first\n")
        yield* write("second\n")
        yield* Deferred.await(finish)
        return "result"
      })
      const fiber = yield* Effect.fork(call.pipe(recordingOutput(turn, "call_1", { timing })))
      yield* settle
      yield* TestClock.adjust("499 millis")
      yield* settle
      expect(committed).toEqual([])
      yield* TestClock.adjust("1 millis")
      yield* settle
      expect(committed).toEqual([{ toolCallId: "call_1", text: "first\nsecond\n" }])
      yield* Deferred.succeed(finish, undefined)
      expect(yield* Fiber.join(fiber)).toBe("result")
      expect(committed).toHaveLength(1)
    }))

  it.effect("coalesces: writes within an interval are one record, and a write after a pause is recorded at once", () =>
    Effect.gen(function* () {
      const { committed, turn } = fakeTurn()
      const finish = yield* Deferred.make<void>()
      const step = yield* Deferred.make<void>()
      const pause = yield* Deferred.make<void>()
      const call = Effect.gen(function* () {
        yield* write("a")
        yield* Deferred.await(step)
        yield* write("b")
        yield* write("c")
        yield* Deferred.await(pause)
        yield* write("d")
        yield* Deferred.await(finish)
        return "done"
      })
      const fiber = yield* Effect.fork(call.pipe(recordingOutput(turn, "call_1", { timing })))
      yield* settle
      yield* TestClock.adjust("500 millis")
      yield* settle
      expect(committed).toEqual([{ toolCallId: "call_1", text: "a" }])
      yield* Deferred.succeed(step, undefined)
      yield* settle
      yield* TestClock.adjust("199 millis")
      yield* settle
      expect(committed).toHaveLength(1)
      yield* TestClock.adjust("1 millis")
      yield* settle
      expect(committed.at(-1)).toEqual({ toolCallId: "call_1", text: "bc" })
      // Long after the last record: the next write goes out without waiting.
      yield* TestClock.adjust("5 seconds")
      yield* Deferred.succeed(pause, undefined)
      yield* settle
      expect(committed.at(-1)).toEqual({ toolCallId: "call_1", text: "d" })
      yield* Deferred.succeed(finish, undefined)
      expect(yield* Fiber.join(fiber)).toBe("done")
    }))

  it.effect("a call that ends in its first moments records nothing: its result says it all", () =>
    Effect.gen(function* () {
      const { committed, turn } = fakeTurn()
      const result = yield* Effect.gen(function* () {
        yield* write("quick\n")
        return "ok"
      }).pipe(recordingOutput(turn, "call_1", { timing }))
      expect(result).toBe("ok")
      yield* TestClock.adjust("10 seconds")
      yield* settle
      expect(committed).toEqual([])
    }))

  it.effect("past the whole part, tails come at the slower interval, until the call's budget is spent", () =>
    Effect.gen(function* () {
      const { committed, turn } = fakeTurn()
      const limits = { wholeBytes: 10, tailBytes: 4, maxBytes: 18 }
      const more = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<void>()
      const call = Effect.gen(function* () {
        yield* write("0123456789abcdef")
        yield* Deferred.await(more)
        yield* write("ghijklmn")
        yield* write("opqrstuv")
        yield* Deferred.await(finish)
      })
      const fiber = yield* Effect.fork(call.pipe(recordingOutput(turn, "call_1", { timing, limits })))
      yield* settle
      yield* TestClock.adjust("500 millis")
      yield* settle
      expect(committed).toEqual([
        { toolCallId: "call_1", text: "0123456789" },
        { toolCallId: "call_1", text: "cdef", skipped: 2 }
      ])
      yield* Deferred.succeed(more, undefined)
      yield* settle
      yield* TestClock.adjust("1999 millis")
      yield* settle
      expect(committed).toHaveLength(2)
      yield* TestClock.adjust("1 millis")
      yield* settle
      // 10 + 4 + 4 = 18: the budget is spent, so this record is the last.
      expect(committed.at(-1)).toEqual({ toolCallId: "call_1", text: "stuv", skipped: 12, capped: true })
      yield* TestClock.adjust("1 minute")
      yield* settle
      expect(committed).toHaveLength(3)
      yield* Deferred.succeed(finish, undefined)
      yield* Fiber.join(fiber)
    }))

  it.effect("a cancel records what was still waiting, before the interruption ends", () =>
    Effect.gen(function* () {
      const { committed, turn } = fakeTurn()
      const wrote = yield* Deferred.make<void>()
      const call = Effect.gen(function* () {
        yield* write("ran before the cancel\n")
        yield* Deferred.succeed(wrote, undefined)
        return yield* Effect.never
      })
      const fiber = yield* Effect.fork(call.pipe(recordingOutput(turn, "call_1", { timing })))
      yield* Deferred.await(wrote)
      expect(committed).toEqual([])
      yield* Fiber.interrupt(fiber)
      expect(committed).toEqual([{ toolCallId: "call_1", text: "ran before the cancel\n" }])
    }))

  it.effect("a record the store refuses ends the recording with a warning; the call goes on to its result", () =>
    Effect.gen(function* () {
      const { committed, turn } = fakeTurn(true)
      const finish = yield* Deferred.make<void>()
      const call = Effect.gen(function* () {
        yield* write("one")
        yield* Deferred.await(finish)
        return "result"
      })
      const fiber = yield* Effect.fork(call.pipe(recordingOutput(turn, "call_1", { timing })))
      yield* settle
      yield* TestClock.adjust("1 second")
      yield* settle
      yield* Deferred.succeed(finish, undefined)
      expect(yield* Fiber.join(fiber)).toBe("result")
      expect(committed).toEqual([])
    }))
})
