import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { AgentEvent } from "../../domain/events.js"
import { otlpConfig } from "./otlp-config.js"
import { makeSpanExporter } from "./otlp-exporter.js"
import { projectLog } from "./spans.js"

export class OtlpNotConfigured extends Schema.TaggedError<OtlpNotConfigured>()("OtlpNotConfigured", {}) {
  override get message() {
    return "no OpenTelemetry endpoint is set: set OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)"
  }
}

const batchSize = 512

/**
 * Sends a stored session's trace, projected from its log by the same projector live tracing
 * uses, so the spans are the ones the live run sent (same ids). A turn the log leaves open
 * (a process that died) ends at its last event, marked as unfinished.
 */
export const exportSessionTrace = (events: ReadonlyArray<AgentEvent>, serviceVersion: string) =>
  Effect.gen(function* () {
    const config = yield* otlpConfig
    if (Option.isNone(config)) return yield* new OtlpNotConfigured()
    const exporter = yield* makeSpanExporter(config.value, serviceVersion).pipe(Effect.provide(FetchHttpClient.layer))
    const spans = projectLog(events, { captureContent: config.value.captureContent })
    for (let i = 0; i < spans.length; i += batchSize) yield* exporter.send(spans.slice(i, i + batchSize))
    return { url: config.value.url, spans: spans.length, traces: new Set(spans.map((span) => span.traceId)).size }
  })
