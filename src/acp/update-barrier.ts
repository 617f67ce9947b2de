import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

interface Waiter {
  readonly target: number
  readonly done: Deferred.Deferred<void>
}

interface Followed {
  /** The session's last committed sequence now. */
  readonly latest: Effect.Effect<number>
  /** The last sequence whose updates the client has been sent. */
  sent: number
  readonly waiters: Set<Waiter>
}

/**
 * How far each followed session's updates have gone out to the client. The host hands
 * events to the prompt's follower asynchronously, so a turn can reach a request to the
 * client (a file read) before the updates of what it committed just before (its tool call)
 * are out; such a request first waits for them, and the editor sees the tool call first.
 */
export class UpdateBarrier {
  private readonly sessions = new Map<string, Followed>()

  /** For the scope: `sessionId`'s updates are sent from `after` on, each reported with `sent`. */
  follow(sessionId: string, after: number, latest: Effect.Effect<number>): Effect.Effect<void, never, Scope.Scope> {
    return Effect.acquireRelease(
      Effect.sync(() => {
        const followed: Followed = { latest, sent: after, waiters: new Set() }
        this.sessions.set(sessionId, followed)
        return followed
      }),
      (followed) =>
        Effect.sync(() => {
          // Nobody sends this session's updates any more: nothing is left to wait for.
          if (this.sessions.get(sessionId) === followed) this.sessions.delete(sessionId)
          for (const waiter of followed.waiters) Deferred.unsafeDone(waiter.done, Effect.void)
          followed.waiters.clear()
        })
    ).pipe(Effect.asVoid)
  }

  /** The updates of the event at `sequence` (and of every one before it) are out. */
  sent(sessionId: string, sequence: number): Effect.Effect<void> {
    return Effect.sync(() => {
      const followed = this.sessions.get(sessionId)
      if (followed === undefined) return
      followed.sent = Math.max(followed.sent, sequence)
      for (const waiter of followed.waiters) {
        if (waiter.target > followed.sent) continue
        followed.waiters.delete(waiter)
        Deferred.unsafeDone(waiter.done, Effect.void)
      }
    })
  }

  /** Waits until the client has the updates of everything `sessionId` committed so far; at once when nobody follows it. */
  caughtUp(sessionId: string): Effect.Effect<void> {
    return Effect.suspend(() => {
      const followed = this.sessions.get(sessionId)
      if (followed === undefined) return Effect.void
      return Effect.flatMap(followed.latest, (target) =>
        Effect.flatMap(Deferred.make<void>(), (done) =>
          Effect.suspend(() => {
            if (followed.sent >= target || this.sessions.get(sessionId) !== followed) return Effect.void
            const waiter: Waiter = { target, done }
            followed.waiters.add(waiter)
            return Deferred.await(done).pipe(Effect.onInterrupt(() => Effect.sync(() => followed.waiters.delete(waiter))))
          })
        )
      )
    })
  }
}
