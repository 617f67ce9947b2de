import type * as Chunk from "effect/Chunk"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"

/**
 * The key under which a stream may also hand out its pull. Running a stream through effect's
 * channel machinery is costly on effect 3, and the engine runs one model answer per step
 * (figures in docs/performance.md): a stream that is built from a pull anyway attaches it, and
 * `for-each-pulled.ts` reads it directly; every other stream works the usual way. Not a port:
 * no service interface mentions it. A registered symbol, so that the model adapter
 * (`src/layers/model/retry.ts`, which may not import core) attaches its pull under the same
 * key privately; `test/core/for-each-pulled.test.ts` checks that its answers are read so.
 */
export const DirectPull: unique symbol = Symbol.for("custom-agent/DirectPull")

/**
 * Opens a pull: a chunk of elements, `None` at the end, `Some(error)` on failure. What it opens
 * lives in the given scope (passed, not provided: providing a service copies the fiber's
 * context); opening may fail with the stream's error.
 */
export type PullIn<A, E, R> = (scope: Scope.Scope) => Effect.Effect<Effect.Effect<Chunk.Chunk<A>, Option.Option<E>, R>, E, R>

/** A stream with its pull attached: both give the same elements, errors and resource lifetime. */
export type DirectlyPullable<A, E, R> = Stream.Stream<A, E, R> & { readonly [DirectPull]: PullIn<A, E, R> }

/** The stream, carrying `pull` as well (which must give what the stream gives). */
export const withPull = <A, E, R>(stream: Stream.Stream<A, E, R>, pull: PullIn<A, E, R>): DirectlyPullable<A, E, R> =>
  Object.assign(stream, { [DirectPull]: pull })

/** Whether the stream carries its pull. */
export const carriesPull = <A, E, R>(stream: Stream.Stream<A, E, R>): stream is DirectlyPullable<A, E, R> => DirectPull in stream
