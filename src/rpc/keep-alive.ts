import * as Duration from "effect/Duration"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"

/**
 * How often a long-lived stream sends a frame when it has nothing else to send: well under
 * the idle limits of HTTP clients and proxies (Node's fetch gives up on a body silent for
 * 300 s; many proxies after 60 s).
 */
export const defaultKeepAlive = Duration.seconds(15)

/** The stream, with `frame` between its elements every `every`; it ends when the stream does. */
export const withKeepAlive = <A, E, R, K>(stream: Stream.Stream<A, E, R>, frame: K, every: Duration.DurationInput): Stream.Stream<A | K, E, R> =>
  Stream.merge(stream, Stream.fromSchedule(Schedule.spaced(every)).pipe(Stream.as(frame)), { haltStrategy: "left" })
