import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Mailbox, Option } from "effect"
import { mailboxPull } from "../../src/core/mailbox-pull.js"

describe("mailboxPull", () => {
  it.effect("gives the messages in order, in the batches they were offered, then None for good", () =>
    Effect.gen(function* () {
      const mailbox = yield* Mailbox.make<number>()
      const pull = mailboxPull(mailbox)
      yield* mailbox.offerAll([1, 2])
      expect(Chunk.toArray(yield* pull)).toEqual([1, 2])
      yield* mailbox.offer(3)
      yield* mailbox.end
      // The last messages come with the end, and nothing after it.
      expect(Chunk.toArray(yield* pull)).toEqual([3])
      expect(yield* Effect.exit(pull)).toEqual(Exit.fail(Option.none()))
      expect(yield* Effect.exit(pull)).toEqual(Exit.fail(Option.none()))
    }))

  it.effect("waits for a message when the mailbox is empty", () =>
    Effect.gen(function* () {
      const mailbox = yield* Mailbox.make<string>()
      const fiber = yield* Effect.fork(mailboxPull(mailbox))
      yield* Effect.yieldNow()
      yield* mailbox.offer("late")
      expect(Chunk.toArray(yield* fiber)).toEqual(["late"])
    }))

  it.effect("wakes a waiting reader only after work its producer queued with process.nextTick", () =>
    Effect.gen(function* () {
      const mailbox = yield* Mailbox.make<string>()
      const seen: Array<string> = []
      const reader = yield* Effect.fork(Effect.tap(mailboxPull(mailbox), (messages) => Effect.sync(() => seen.push(...messages))))
      yield* Effect.yieldNow()
      // What a model request does after the step's last event: Node writes it on the next tick.
      yield* mailbox.offer("event")
      yield* Effect.sync(() => process.nextTick(() => seen.push("request written")))
      yield* Fiber.join(reader)
      expect(seen).toEqual(["request written", "event"])
    }))

  it.effect("fails with Some(error) when the mailbox fails, after the messages before it", () =>
    Effect.gen(function* () {
      const mailbox = yield* Mailbox.make<number, string>()
      const pull = mailboxPull(mailbox)
      yield* mailbox.offer(1)
      expect(Chunk.toArray(yield* pull)).toEqual([1])
      yield* mailbox.fail("broken")
      expect(yield* Effect.exit(pull)).toEqual(Exit.fail(Option.some("broken")))
    }))
})
