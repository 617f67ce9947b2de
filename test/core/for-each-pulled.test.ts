import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Exit, Fiber, Option, Scope, Stream } from "effect"
import { forEachPulled } from "../../src/core/for-each-pulled.js"
import { carriesPull, DirectPull } from "../../src/core/direct-pull.js"
import { modelAnswer } from "../../src/layers/model/retry.js"

describe("forEachPulled", () => {
  it.effect("runs the function on every element in order, across chunks", () =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      const stream = Stream.concat(Stream.fromIterable([1, 2, 3]), Stream.fromIterable([4, 5])).pipe(Stream.rechunk(2))
      yield* forEachPulled(stream, (n) => Effect.sync(() => seen.push(n)))
      expect(seen).toEqual([1, 2, 3, 4, 5])
    }))

  it.effect("fails with the stream's error after the elements before it, and with the function's error", () =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      const streamFailure = yield* Effect.exit(
        forEachPulled(Stream.concat(Stream.make(1), Stream.fail("broken")), (n) => Effect.sync(() => seen.push(n)))
      )
      expect(seen).toEqual([1])
      expect(streamFailure).toEqual(Exit.fail("broken"))
      const functionFailure = yield* Effect.exit(forEachPulled(Stream.make(1, 2), (n) => (n === 2 ? Effect.fail("no") : Effect.void)))
      expect(functionFailure).toEqual(Exit.fail("no"))
    }))

  it.effect("releases the stream's resources when it ends and when it is interrupted midway", () =>
    Effect.gen(function* () {
      let open = 0
      const resource = Stream.acquireRelease(Effect.sync(() => open++), () => Effect.sync(() => open--))
      yield* forEachPulled(Stream.flatMap(resource, () => Stream.make(1, 2)), () => Effect.void)
      expect(open).toBe(0)
      const started = yield* Deferred.make<void>()
      const endless = Stream.flatMap(resource, () => Stream.concat(Stream.make(1), Stream.never))
      const fiber = yield* Effect.fork(forEachPulled(endless, () => Deferred.succeed(started, undefined)))
      yield* Deferred.await(started)
      expect(open).toBe(1)
      yield* Fiber.interrupt(fiber)
      expect(open).toBe(0)
    }))

  it.effect("reads a stream that carries its pull through that pull, releasing what it opened", () =>
    Effect.gen(function* () {
      let open = 0
      const carried = (scope: Scope.Scope) =>
        Effect.sync(() => {
          open++
          const left = [7, 8]
          return Effect.suspend(() => {
            const next = left.shift()
            return next === undefined ? Effect.fail(Option.none()) : Effect.succeed(Chunk.of(next))
          })
        }).pipe(Effect.tap(() => Scope.addFinalizer(scope, Effect.sync(() => open--))))
      // The stream itself would give 1, 2: seeing 7, 8 shows the carried pull was read.
      const stream = Object.assign(Stream.make(1, 2), { [DirectPull]: carried })
      const seen: Array<number> = []
      yield* forEachPulled(stream, (n) => Effect.sync(() => seen.push(n)))
      expect(seen).toEqual([7, 8])
      expect(open).toBe(0)
    }))

  it.effect("a model adapter's answer carries its pull under the engine's key, and reading it gives the answer", () =>
    Effect.gen(function* () {
      const answer = modelAnswer({
        policy: { maxAttempts: 1, baseDelay: 0, maxDelay: 0 },
        preflight: Effect.void,
        open: () => Effect.succeed(Effect.succeed({ events: [{ _tag: "TextDelta", text: "hi" }], done: true }))
      })
      // The adapter (a layer) cannot import the key: it registers the same symbol, which this pins.
      expect(carriesPull(answer)).toBe(true)
      const seen: Array<unknown> = []
      yield* forEachPulled(answer, (event) => Effect.sync(() => seen.push(event)))
      expect(seen).toEqual([{ _tag: "TextDelta", text: "hi" }])
    }))
})
