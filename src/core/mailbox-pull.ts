import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"
import * as Scheduler from "effect/Scheduler"

/**
 * Wakes a waiting reader on a macrotask (setImmediate) instead of effect's microtask. A turn
 * runs on after it offers an event until it waits on I/O, and at the end of a tool-chain step
 * that wait is a model request, whose socket write Node queues with process.nextTick: those
 * run only once every queued microtask has. A reader woken as a microtask would render the
 * step's events first and hold the request back; woken later, it renders while the model
 * server works (the gain per chain step is in docs/performance.md).
 */
export const afterPendingIo = Scheduler.make((task) => {
  setImmediate(task)
})

/**
 * A mailbox read as a pull (what `Stream.toPull(Mailbox.toStream(mailbox))` gives, without
 * the stream machinery): every message in order, in the chunks they were taken in, then
 * `None` once the mailbox is done, or `Some(error)` if it failed.
 */
export const mailboxPull = <A, E>(mailbox: Mailbox.ReadonlyMailbox<A, E>): Effect.Effect<Chunk.Chunk<A>, Option.Option<E>> =>
  // A done mailbox keeps answering takeAll with no messages and `done`, so the end needs no flag.
  Effect.matchEffect(Effect.withScheduler(mailbox.takeAll, afterPendingIo), {
    onFailure: (error) => Effect.fail(Option.some(error)),
    onSuccess: ([messages, done]) => (done && Chunk.isEmpty(messages) ? Effect.fail(Option.none()) : Effect.succeed(messages))
  })
