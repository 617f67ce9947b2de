import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { makeCommitLock } from "../../src/core/commit-lock.js"

describe("CommitLock", () => {
  it.effect("lets one holder in at a time, however many ask at once", () =>
    Effect.gen(function* () {
      const lock = makeCommitLock()
      let inside = 0
      let most = 0
      let counter = 0
      const critical = lock.withLock(
        Effect.gen(function* () {
          inside++
          most = Math.max(most, inside)
          const seen = counter
          yield* Effect.yieldNow()
          counter = seen + 1
          inside--
        })
      )
      yield* Effect.all(Array.from({ length: 50 }, () => critical), { concurrency: "unbounded" })
      expect(counter).toBe(50)
      expect(most).toBe(1)
    }))

  it.effect("hands the lock to waiters in the order they asked", () =>
    Effect.gen(function* () {
      const lock = makeCommitLock()
      const gate = yield* Deferred.make<void>()
      const order: Array<string> = []
      const holder = yield* Effect.fork(lock.withLock(Deferred.await(gate)))
      yield* Effect.yieldNow()
      const waiters: Array<Fiber.RuntimeFiber<void>> = []
      for (const name of ["a", "b", "c"]) {
        waiters.push(yield* Effect.fork(lock.withLock(Effect.sync(() => void order.push(name)))))
        yield* Effect.yieldNow()
      }
      expect(order).toEqual([])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.joinAll(waiters)
      expect(order).toEqual(["a", "b", "c"])
    }))

  it.effect("is released when the holder fails, so the next one gets it", () =>
    Effect.gen(function* () {
      const lock = makeCommitLock()
      const failed = yield* Effect.exit(lock.withLock(Effect.fail("store down")))
      expect(failed).toEqual(Exit.fail("store down"))
      expect(yield* lock.withLock(Effect.succeed("next"))).toBe("next")
    }))

  it.effect("an interrupted holder finishes its work first; an interrupted waiter still runs and releases", () =>
    Effect.gen(function* () {
      const lock = makeCommitLock()
      const gate = yield* Deferred.make<void>()
      const done: Array<string> = []
      const holder = yield* Effect.fork(lock.withLock(Deferred.await(gate).pipe(Effect.zipRight(Effect.sync(() => done.push("holder"))))))
      yield* Effect.yieldNow()
      const waiter = yield* Effect.fork(lock.withLock(Effect.sync(() => done.push("waiter"))))
      yield* Effect.yieldNow()
      const interrupting = yield* Effect.fork(Fiber.interrupt(holder).pipe(Effect.zipRight(Fiber.interrupt(waiter))))
      yield* Effect.yieldNow()
      expect(done).toEqual([])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(interrupting)
      expect(done).toEqual(["holder", "waiter"])
      expect(yield* lock.withLock(Effect.succeed("free"))).toBe("free")
    }))
})
