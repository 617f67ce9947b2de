import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import type * as Mailbox from "effect/Mailbox"
import * as Option from "effect/Option"

/**
 * A mailbox read as a pull (what `Stream.toPull(Mailbox.toStream(mailbox))` gives, without
 * the stream machinery): every message in order, in the chunks they were taken in, then
 * `None` once the mailbox is done, or `Some(error)` if it failed.
 */
export const mailboxPull = <A, E>(mailbox: Mailbox.ReadonlyMailbox<A, E>): Effect.Effect<Chunk.Chunk<A>, Option.Option<E>> => {
  let finished = false
  const taken = ([messages, done]: readonly [Chunk.Chunk<A>, boolean]): Effect.Effect<Chunk.Chunk<A>, Option.Option<E>> => {
    if (!done) return Effect.succeed(messages)
    finished = true
    return Chunk.isEmpty(messages) ? Effect.fail(Option.none()) : Effect.succeed(messages)
  }
  return Effect.suspend(() =>
    finished ? Effect.fail(Option.none()) : Effect.matchEffect(mailbox.takeAll, { onFailure: (error) => Effect.fail(Option.some(error)), onSuccess: taken })
  )
}
