import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as OtlpResource from "@effect/opentelemetry/OtlpResource"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { OtlpConfig } from "./otlp-config.js"
import type { ProjectedSpan } from "./spans.js"

export class OtlpExportError extends Schema.TaggedError<OtlpExportError>()("OtlpExportError", {
  url: Schema.String,
  problem: Schema.String
}) {
  override get message() {
    return `sending spans to ${this.url} failed: ${this.problem}`
  }
}

const spanKinds = { internal: 1, client: 3 } as const
const nanos = (ms: number) => (BigInt(Math.round(ms)) * 1_000_000n).toString()

/** A projected span as the OTLP trace data model has it (what both serializations encode). */
export const toOtlpSpan = (span: ProjectedSpan) => ({
  traceId: span.traceId,
  spanId: span.spanId,
  ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
  name: span.name,
  kind: spanKinds[span.kind],
  startTimeUnixNano: nanos(span.startMs),
  endTimeUnixNano: nanos(span.endMs),
  attributes: OtlpResource.entriesToAttributes(Object.entries(span.attributes)),
  droppedAttributesCount: 0,
  events: span.events.map((event) => ({
    name: event.name,
    timeUnixNano: nanos(event.timeMs),
    attributes: OtlpResource.entriesToAttributes(Object.entries(event.attributes)),
    droppedAttributesCount: 0
  })),
  droppedEventsCount: 0,
  // 1: ok, 2: error.
  status: span.error === undefined ? { code: 1 } : { code: 2, message: span.error },
  links: [],
  droppedLinksCount: 0
})

export interface SpanExporter {
  /** One OTLP/HTTP request with these spans; a refusal or a network failure is an error naming the URL. */
  readonly send: (spans: ReadonlyArray<ProjectedSpan>) => Effect.Effect<void, OtlpExportError>
}

/** Sends spans with the platform's HTTP client, encoded by @effect/opentelemetry as the configured protocol. */
export const makeSpanExporter = (config: OtlpConfig, serviceVersion: string): Effect.Effect<SpanExporter, never, HttpClient.HttpClient> =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    // The resource reads OTEL_RESOURCE_ATTRIBUTES; OTEL_SERVICE_NAME (or service.name there) names us, else custom-agent.
    const resource = yield* OtlpResource.fromConfig({
      serviceVersion,
      ...(config.serviceName !== undefined ? { serviceName: config.serviceName } : yield* serviceNameFallback)
    })
    const serialization = yield* Effect.provide(
      OtlpSerialization.OtlpSerialization,
      config.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
    )
    const scope = { name: "custom-agent", version: serviceVersion }
    const fail = (problem: string) => new OtlpExportError({ url: config.url, problem })
    return {
      send: (spans) =>
        spans.length === 0
          ? Effect.void
          : HttpClientRequest.post(config.url).pipe(
              HttpClientRequest.setHeaders(config.headers),
              HttpClientRequest.setBody(
                serialization.traces({ resourceSpans: [{ resource, scopeSpans: [{ scope, spans: spans.map(toOtlpSpan) }] }] })
              ),
              client.execute,
              Effect.flatMap((response) =>
                response.status >= 200 && response.status < 300
                  ? Effect.void
                  : Effect.flatMap(Effect.orElseSucceed(response.text, () => ""), (body) =>
                      Effect.fail(fail(`HTTP ${response.status}${body === "" ? "" : `: ${body.slice(0, 300)}`}`))
                    )
              ),
              Effect.catchTags({
                RequestError: (error) => Effect.fail(fail(error.message)),
                ResponseError: (error) => Effect.fail(fail(error.message))
              }),
              Effect.scoped
            )
    }
  })

/** No OTEL_SERVICE_NAME: the resource attributes' `service.name` if they have one, else ours. */
const serviceNameFallback = Effect.map(
  Effect.orElseSucceed(Effect.map(Config.string("OTEL_RESOURCE_ATTRIBUTES"), (text) => /(^|,)\s*service\.name\s*=/.test(text)), () => false),
  (named) => (named ? {} : { serviceName: "custom-agent" })
)
