import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"

/**
 * A mailbox read as a pull (what `Stream.toPull(Mailbox.toStream(mailbox))` gives, without
 * the stream machinery): every message in order, in the chunks they were taken in, then
 * `None` once the mailbox is done, or `Some(error)` if it failed.
 */
export const mailboxPull = <A, E>(mailbox: Mailbox.ReadonlyMailbox<A, E>): Effect.Effect<Chunk.Chunk<A>, Option.Option<E>> =>
  // A done mailbox keeps answering takeAll with no messages and `done`, so the end needs no flag.
  Effect.matchEffect(mailbox.takeAll, {
    onFailure: (error) => Effect.fail(Option.some(error)),
    onSuccess: ([messages, done]) => (done && Chunk.isEmpty(messages) ? Effect.fail(Option.none()) : Effect.succeed(messages))
  })
