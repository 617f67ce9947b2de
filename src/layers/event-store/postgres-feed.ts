import type { PgClient } from "@effect/sql-pg"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { AppendFeed } from "../../services/AppendFeed.js"
import { listenAppends } from "./postgres-notify.js"

/**
 * The append feed of a Postgres store: one LISTEN for the process, each notice handed to the
 * readers of its session. A reader's queue keeps only the newest wake-up (a sliding queue of
 * one): it re-reads the store from where it was, however many appends it slept through.
 */
export const layer: Layer.Layer<AppendFeed, never, PgClient.PgClient> = Layer.scoped(
  AppendFeed,
  Effect.gen(function* () {
    const readers = new Map<string, Set<Queue.Queue<number>>>()
    const notices = yield* listenAppends.pipe(
      Effect.tapError((error) => Effect.logWarning("append notices are off: readers fall back to looking now and then", error)),
      Effect.option
    )
    if (notices._tag === "Some") {
      yield* notices.value.pipe(
        Stream.runForEach((notice) =>
          Effect.forEach(readers.get(notice.sessionId) ?? [], (queue) => Queue.offer(queue, notice.sequence), { discard: true })
        ),
        Effect.tapError((error) => Effect.logWarning("append notices stopped: readers fall back to looking now and then", error)),
        Effect.ignore,
        Effect.forkScoped
      )
    }
    return AppendFeed.of({
      follow: (sessionId) =>
        Effect.acquireRelease(
          Effect.tap(Queue.sliding<number>(1), (queue) =>
            Effect.sync(() => readers.set(sessionId, (readers.get(sessionId) ?? new Set()).add(queue)))
          ),
          (queue) =>
            Effect.sync(() => {
              const set = readers.get(sessionId)
              set?.delete(queue)
              if (set?.size === 0) readers.delete(sessionId)
            })
        )
    })
  })
)
