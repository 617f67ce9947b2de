import { Effect } from "effect"
import { createServer } from "node:http"

/** What an OTLP/HTTP request carried, decoded. */
export interface ReceivedRequest {
  readonly path: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly contentType: string
  readonly body: Buffer
}

export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind?: number
  readonly startTimeUnixNano?: string
  readonly endTimeUnixNano?: string
  readonly attributes: Record<string, unknown>
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes: Record<string, unknown> }>
  readonly status?: { readonly code?: number; readonly message?: string }
  readonly resource: Record<string, unknown>
}

interface JsonKeyValue {
  readonly key: string
  readonly value: Record<string, unknown>
}

const valueOf = (value: Record<string, unknown>): unknown => {
  if ("arrayValue" in value) {
    const array = value["arrayValue"] as { values: Array<Record<string, unknown>> }
    return array.values.map(valueOf)
  }
  return value["stringValue"] ?? value["intValue"] ?? value["doubleValue"] ?? value["boolValue"]
}
const attributesOf = (list: ReadonlyArray<JsonKeyValue> | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]))

/** The spans of OTLP/HTTP JSON bodies, flattened, each with its resource's attributes. */
export const jsonSpans = (requests: ReadonlyArray<ReceivedRequest>): ReadonlyArray<ReceivedSpan> =>
  requests.flatMap((request) => {
    const data = JSON.parse(request.body.toString("utf8")) as {
      resourceSpans: Array<{ resource: { attributes: Array<JsonKeyValue> }; scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>
    }
    return data.resourceSpans.flatMap((rs) =>
      rs.scopeSpans.flatMap((ss) =>
        ss.spans.map(
          (span): ReceivedSpan => ({
            traceId: String(span["traceId"]),
            spanId: String(span["spanId"]),
            ...(span["parentSpanId"] === undefined ? {} : { parentSpanId: String(span["parentSpanId"]) }),
            name: String(span["name"]),
            kind: Number(span["kind"]),
            startTimeUnixNano: String(span["startTimeUnixNano"]),
            endTimeUnixNano: String(span["endTimeUnixNano"]),
            attributes: attributesOf(span["attributes"] as Array<JsonKeyValue>),
            events: (span["events"] as Array<{ name: string; attributes: Array<JsonKeyValue> }>).map((e) => ({ name: e.name, attributes: attributesOf(e.attributes) })),
            status: span["status"] as { code?: number; message?: string },
            resource: attributesOf(rs.resource.attributes)
          })
        )
      )
    )
  })

// ---- a minimal protobuf reader: enough of ExportTraceServiceRequest to check ids, names and links ----

type Field = { readonly number: number; readonly wire: number; readonly bytes?: Buffer; readonly varint?: bigint }

const fields = (buffer: Buffer): ReadonlyArray<Field> => {
  const out: Array<Field> = []
  let at = 0
  const varint = () => {
    let result = 0n
    let shift = 0n
    for (;;) {
      const byte = buffer[at++] ?? 0
      result |= BigInt(byte & 0x7f) << shift
      if ((byte & 0x80) === 0) return result
      shift += 7n
    }
  }
  while (at < buffer.length) {
    const tag = Number(varint())
    const number = tag >> 3
    const wire = tag & 7
    if (wire === 0) out.push({ number, wire, varint: varint() })
    else if (wire === 1) out.push({ number, wire, bytes: buffer.subarray(at, (at += 8)) })
    else if (wire === 5) out.push({ number, wire, bytes: buffer.subarray(at, (at += 4)) })
    else if (wire === 2) {
      const length = Number(varint())
      out.push({ number, wire, bytes: buffer.subarray(at, (at += length)) })
    } else throw new Error(`unexpected wire type ${wire}`)
  }
  return out
}
const sub = (buffer: Buffer, n: number) => fields(buffer).filter((f) => f.number === n && f.bytes !== undefined).map((f) => f.bytes as Buffer)

/** Ids, names and parents of the spans in OTLP/HTTP protobuf bodies. */
export const protobufSpans = (requests: ReadonlyArray<ReceivedRequest>) =>
  requests.flatMap((request) =>
    sub(request.body, 1).flatMap((resourceSpans) =>
      sub(resourceSpans, 2).flatMap((scopeSpans) =>
        sub(scopeSpans, 2).map((span) => {
          const parent = sub(span, 4)[0]
          return {
            traceId: sub(span, 1)[0]?.toString("hex") ?? "",
            spanId: sub(span, 2)[0]?.toString("hex") ?? "",
            ...(parent === undefined ? {} : { parentSpanId: parent.toString("hex") }),
            name: sub(span, 5)[0]?.toString("utf8") ?? ""
          }
        })
      )
    )
  )

/**
 * An OTLP/HTTP receiver on 127.0.0.1 (port 0) for a test's scope: it keeps every request and
 * answers `status` (200 unless told otherwise).
 */
export const startOtlpReceiver = (options: { readonly status?: number } = {}) =>
  Effect.acquireRelease(
    Effect.async<{ readonly endpoint: string; readonly requests: Array<ReceivedRequest>; readonly close: () => void }>((resume) => {
      const requests: Array<ReceivedRequest> = []
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          requests.push({ path: req.url ?? "", headers: req.headers, contentType: req.headers["content-type"] ?? "", body: Buffer.concat(chunks) })
          res.writeHead(options.status ?? 200, { "content-type": "application/json" }).end("{}")
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const address = server.address()
        const port = typeof address === "object" && address !== null ? address.port : 0
        resume(Effect.succeed({ endpoint: `http://127.0.0.1:${port}`, requests, close: () => server.close() }))
      })
    }),
    (receiver) => Effect.sync(receiver.close)
  )
