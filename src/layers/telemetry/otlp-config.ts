import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

export class OtlpConfigError extends Schema.TaggedError<OtlpConfigError>()("OtlpConfigError", {
  problem: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {
  override get message() {
    return `OpenTelemetry settings: ${this.problem}`
  }
}

/** Where and how spans are sent, from the standard OTEL_* environment variables. */
export interface OtlpConfig {
  /** The traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as is, or OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly protocol: "http/protobuf" | "http/json"
  /** OTEL_SERVICE_NAME, else `service.name` of OTEL_RESOURCE_ATTRIBUTES (read by the resource), else `custom-agent`. */
  readonly serviceName: string | undefined
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: prompts, answers and tool input/output go into spans. */
  readonly captureContent: boolean
}

const optionalString = (name: string) => Config.option(Config.string(name)).pipe(Config.map(Option.filter((value) => value.trim() !== "")))

/** `k1=v1,k2=v2` with percent-encoded values (the OTLP exporter spec's format). */
export const parseHeaders = (text: string): Effect.Effect<Record<string, string>, OtlpConfigError> =>
  Effect.try({
    try: () => {
      const headers: Record<string, string> = {}
      for (const pair of text.split(",")) {
        if (pair.trim() === "") continue
        const eq = pair.indexOf("=")
        if (eq <= 0) throw new Error(`"${pair.trim()}" is not key=value`)
        headers[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim())
      }
      return headers
    },
    catch: (error) => new OtlpConfigError({ problem: `OTEL_EXPORTER_OTLP_HEADERS: ${error instanceof Error ? error.message : String(error)}`, cause: error })
  })

/**
 * The exporter's settings, or none when tracing is off: no endpoint is set, or
 * OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none. Signal-specific variables win over
 * the general ones, as the spec says. Only OTLP over HTTP is spoken (grpc is refused).
 */
export const otlpConfig: Effect.Effect<Option.Option<OtlpConfig>, OtlpConfigError> = Effect.gen(function* () {
  const read = <A>(config: Config.Config<A>) => Effect.mapError(config, (error) => new OtlpConfigError({ problem: String(error), cause: error }))
  const disabled = yield* read(optionalString("OTEL_SDK_DISABLED"))
  const exporter = yield* read(optionalString("OTEL_TRACES_EXPORTER"))
  if (Option.getOrUndefined(disabled)?.toLowerCase() === "true" || Option.getOrUndefined(exporter)?.toLowerCase() === "none") return Option.none()
  const tracesEndpoint = yield* read(optionalString("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
  const endpoint = yield* read(optionalString("OTEL_EXPORTER_OTLP_ENDPOINT"))
  const url = Option.isSome(tracesEndpoint)
    ? tracesEndpoint.value
    : Option.isSome(endpoint)
      ? `${endpoint.value.replace(/\/+$/, "")}/v1/traces`
      : undefined
  if (url === undefined) return Option.none()
  if (!/^https?:\/\//.test(url)) return yield* new OtlpConfigError({ problem: `the endpoint ${url} is not an http(s) URL` })
  const text = (name: string) => Effect.map(read(optionalString(name)), Option.getOrElse(() => ""))
  const general = yield* parseHeaders(yield* text("OTEL_EXPORTER_OTLP_HEADERS"))
  const specific = yield* parseHeaders(yield* text("OTEL_EXPORTER_OTLP_TRACES_HEADERS"))
  const headers = { ...general, ...specific }
  const protocol = (yield* text("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")) || (yield* text("OTEL_EXPORTER_OTLP_PROTOCOL")) || "http/protobuf"
  if (protocol !== "http/protobuf" && protocol !== "http/json") {
    return yield* new OtlpConfigError({ problem: `protocol ${protocol} is not supported: use http/protobuf (the default) or http/json` })
  }
  const serviceName = yield* read(optionalString("OTEL_SERVICE_NAME"))
  const capture = yield* read(optionalString("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"))
  return Option.some({
    url,
    headers,
    protocol,
    serviceName: Option.getOrUndefined(serviceName),
    captureContent: Option.getOrUndefined(capture)?.toLowerCase() === "true"
  })
})
