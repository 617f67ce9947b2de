import * as Chunk from "effect/Chunk"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import { EventBus } from "../../services/EventBus.js"
import { TraceContext } from "../../services/TraceContext.js"
import { type OtlpConfigError, otlpConfig } from "./otlp-config.js"
import { spanTraceparent } from "./span-ids.js"
import { makeSpanProjector, type ProjectedSpan } from "./spans.js"

const untraced = TraceContext.of({ traceparent: () => undefined })

/** Spans waiting to be sent; past this, new ones are dropped (a collector that is down must not hold memory). */
const queueCapacity = 4_096
const batchSize = 512
/** How long closing waits for the last spans to go out. */
const flushTimeout = Duration.seconds(3)

/**
 * The EventBus with live tracing: each event the engine published (after the store committed
 * it) is fed to the span projector, and the spans it ends are sent in the background over
 * OTLP/HTTP; tool processes get their span's TRACEPARENT. With no OTEL endpoint configured
 * this is the inner bus itself: nothing is added to the path of an event. A collector that fails costs a warning in the log, never a turn.
 */
export const withTracing = <E, R>(
  inner: Layer.Layer<EventBus, E, R>,
  serviceVersion: string
): Layer.Layer<EventBus | TraceContext, E | OtlpConfigError, R> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const bus = yield* EventBus
      const config = yield* otlpConfig
      if (Option.isNone(config)) return Context.make(EventBus, bus).pipe(Context.add(TraceContext, untraced))
      // Loaded only when tracing is on: the exporter and the HTTP client cost start-up time.
      const { makeSpanExporter } = yield* Effect.promise(() => import("./otlp-exporter.js"))
      const { layer: httpClient } = yield* Effect.promise(() => import("@effect/platform/FetchHttpClient"))
      const exporter = yield* makeSpanExporter(config.value, serviceVersion).pipe(Effect.provide(httpClient))
      const projector = makeSpanProjector({ captureContent: config.value.captureContent })
      const queue = yield* Queue.dropping<ProjectedSpan>(queueCapacity)
      const sendBatch = (spans: ReadonlyArray<ProjectedSpan>) =>
        exporter.send(spans).pipe(Effect.catchAll((error) => Effect.logWarning(`${error.message}; ${spans.length} span(s) dropped`)))
      // The sender stops between batches once closing is signalled, so a batch in flight is never cut off.
      const closing = yield* Deferred.make<void>()
      const nextBatch = Effect.raceFirst(
        Effect.map(Queue.takeBetween(queue, 1, batchSize), (chunk) => Option.some(Chunk.toReadonlyArray(chunk))),
        Effect.as(Deferred.await(closing), Option.none<ReadonlyArray<ProjectedSpan>>())
      )
      const sender = yield* Effect.forkScoped(
        Effect.iterate(true, {
          while: (more) => more,
          body: () => Effect.flatMap(nextBatch, Option.match({ onNone: () => Effect.succeed(false), onSome: (spans) => Effect.as(sendBatch(spans), true) }))
        })
      )
      // Runs before the sender is interrupted (finalizers run in reverse): the batch in flight
      // finishes, then what is still queued goes out, within a bound.
      yield* Effect.addFinalizer(() =>
        Deferred.succeed(closing, undefined).pipe(
          Effect.zipRight(Fiber.join(sender)),
          Effect.zipRight(Queue.takeAll(queue)),
          Effect.flatMap((chunk) => sendBatch(Chunk.toReadonlyArray(chunk))),
          Effect.timeout(flushTimeout),
          Effect.catchAll(() => Effect.logWarning("OpenTelemetry: the last spans could not be sent in time"))
        )
      )
      const traced = EventBus.of({
        publish: (event) =>
          Effect.zipRight(
            bus.publish(event),
            Effect.suspend(() => {
              const spans = projector.push(event)
              return spans.length === 0 ? Effect.void : Effect.asVoid(Queue.offerAll(queue, spans))
            })
          ),
        status: bus.status
      })
      return Context.make(EventBus, traced).pipe(Context.add(TraceContext, TraceContext.of({ traceparent: spanTraceparent })))
    })
  ).pipe(Layer.provide(inner))
