import type * as Chunk from "effect/Chunk"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Stream from "effect/Stream"

/**
 * The key under which a stream may also hand out its pull. Running a stream through effect's
 * channel machinery is costly on effect 3, and the engine runs one model answer per step
 * (figures in docs/performance.md): an adapter that builds its answer from a pull anyway
 * attaches it, and the engine reads it directly. Any other stream works the usual way.
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
