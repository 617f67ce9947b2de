import type * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { carriesPull, DirectPull } from "./direct-pull.js"

/**
 * `Stream.runForEachChunk` on a plain pull: the same chunks, in order, with the stream's
 * resources released when this ends or is interrupted. On effect 3 a `runForEach` run costs
 * more than pulling, which counts on the per-step path (figures in docs/performance.md). A
 * stream that carries its own pull (`DirectPull`,
 * as model answers and turns do) is read through that, without effect's stream machinery.
 */
export const forEachChunkPulled = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  f: (chunk: Chunk.Chunk<A>) => Effect.Effect<unknown, E2, R2>
): Effect.Effect<void, E | E2, R | R2> => chunksPulledUntil(stream, (chunk) => Effect.as(f(chunk), false))

/** Like `forEachChunkPulled`, but stops (and releases the stream) once `f` answers true. */
const chunksPulledUntil = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  f: (chunk: Chunk.Chunk<A>) => Effect.Effect<boolean, E2, R2>
): Effect.Effect<void, E | E2, R | R2> =>
  Effect.acquireUseRelease(
    Scope.make(),
    (scope) =>
      Effect.flatMap(carriesPull(stream) ? stream[DirectPull](scope) : Scope.extend(Stream.toPull(stream), scope), (pull) =>
        Effect.gen(function* () {
          for (;;) {
            const chunk = yield* Effect.catchAll(pull, Option.match({ onNone: () => Effect.succeed(undefined), onSome: Effect.fail }))
            if (chunk === undefined || (yield* f(chunk))) return
          }
        })
      ),
    (scope, exit) => Scope.close(scope, exit)
  )

/** Each element in order until `f` answers true for one (the last it sees), or the stream ends. */
export const pulledUntil = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  f: (element: A) => Effect.Effect<boolean, E2, R2>
): Effect.Effect<void, E | E2, R | R2> =>
  chunksPulledUntil(stream, (chunk) =>
    Effect.gen(function* () {
      for (const element of chunk) if (yield* f(element)) return true
      return false
    })
  )

/** `Stream.runForEach` the same way: each element of each chunk, in order. */
export const forEachPulled = <A, E, R, E2, R2>(
  stream: Stream.Stream<A, E, R>,
  f: (element: A) => Effect.Effect<unknown, E2, R2>
): Effect.Effect<void, E | E2, R | R2> =>
  forEachChunkPulled(stream, (chunk) =>
    Effect.gen(function* () {
      for (const element of chunk) yield* f(element)
    })
  )
