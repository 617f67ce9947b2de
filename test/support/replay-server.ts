import { Effect, Schema, type Scope } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import {
  type ErrorResponse,
  type Fixture,
  type FixtureError,
  fixtureResponses,
  loadFixture,
  type ReplayResponse,
  type SseEvent,
  type StreamResponse,
  type WireFormat
} from "./replay-fixture.js"
import { toolCallIdsOf, toolResultIdsOf } from "./replay-wire.js"

/**
 * A real HTTP server that speaks the Anthropic Messages, Chat Completions and Responses
 * streaming formats, serving a fixture's responses in order (one per request) and recording every
 * request it receives. Tests point the real SDK / HTTP client at `url`.
 */
export interface RecordedRequest {
  readonly index: number
  readonly method: string
  readonly path: string
  /** Lower-case names. */
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body (the raw text if it was not JSON). */
  readonly body: unknown
  /** Ids of the tool results the request carries (Anthropic `tool_result`, OpenAI `tool` messages or `function_call_output` items). */
  readonly toolResultIds: ReadonlyArray<string>
  /** Index of the fixture response that answered it; undefined when the server refused it. */
  readonly response: number | undefined
  /** The client went away before the response ended (an aborted request). */
  readonly closedByClient: boolean
  /** Milliseconds on the server's clock (performance.now): request handed over, body read, each event of a stream written, connection closed. */
  readonly timing: { readonly receivedAt: number; readonly bodyReadAt: number; readonly writtenAt: ReadonlyArray<number>; readonly closedAt: number | undefined }
}

export interface ReplaySummary {
  readonly requests: ReadonlyArray<RecordedRequest>
  /** Fixture responses served so far. */
  readonly served: number
  /** Distinct tool result ids seen across all requests. */
  readonly toolResultsSeen: number
  /** The server's `performance.timeOrigin`: its timings plus this are milliseconds since the epoch, comparable with another process's. */
  readonly timeOrigin: number
}

export interface ReplayServer {
  /** `http://127.0.0.1:<port>`: Anthropic's base URL; append `/v1` for the OpenAI one. */
  readonly url: string
  readonly requests: Effect.Effect<ReadonlyArray<RecordedRequest>>
  readonly summary: Effect.Effect<ReplaySummary>
  /** Waits until the connection of request `index` (0-based) has closed; gives its record. */
  readonly awaitClosed: (index: number) => Effect.Effect<RecordedRequest>
}

export class ReplayServerError extends Schema.TaggedError<ReplayServerError>()("ReplayServerError", {
  message: Schema.String
}) {}

interface MutableRecord {
  index: number
  method: string
  path: string
  headers: Record<string, string>
  body: unknown
  toolResultIds: ReadonlyArray<string>
  response: number | undefined
  closedByClient: boolean
  closed: boolean
  droppedByServer: boolean
  timing: { receivedAt: number; bodyReadAt: number; writtenAt: Array<number>; closedAt: number | undefined }
}

const paths: Readonly<Record<WireFormat, ReadonlyArray<string>>> = {
  anthropic: ["/v1/messages"],
  openai: ["/v1/chat/completions", "/chat/completions"],
  "openai-responses": ["/v1/responses", "/responses"]
}

const errorBody = (format: WireFormat, message: string) =>
  format === "anthropic"
    ? { type: "error", error: { type: "invalid_request_error", message } }
    : { error: { message, type: "invalid_request_error", code: null } }

const sseText = (event: SseEvent): string => {
  const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data)
  const lines = data.split("\n").map((line) => `data: ${line}`).join("\n")
  return `${event.event === undefined ? "" : `event: ${event.event}\n`}${lines}\n\n`
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const parseJson = (text: string): { readonly ok: boolean; readonly value: unknown } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false, value: text }
  }
}

const headersOf = (req: IncomingMessage): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers })
  res.end(JSON.stringify(body))
}

/** Serves one fixture; all state lives here so a CLI and a test can share it. */
const makeHandler = (fixture: Fixture, state: { shuttingDown: boolean }) => {
  const responses = fixtureResponses(fixture)
  const records: Array<MutableRecord> = []
  const closeWaiters = new Map<number, Array<(record: RecordedRequest) => void>>()
  const seenToolResults = new Set<string>()
  let next = 0
  let pendingToolCalls: ReadonlyArray<string> = []

  const snapshot = (record: MutableRecord): RecordedRequest => ({
    index: record.index,
    method: record.method,
    path: record.path,
    headers: { ...record.headers },
    body: record.body,
    toolResultIds: record.toolResultIds,
    response: record.response,
    closedByClient: record.closedByClient,
    timing: { ...record.timing, writtenAt: [...record.timing.writtenAt] }
  })

  const summary = (): ReplaySummary => ({
    requests: records.map(snapshot),
    served: next,
    toolResultsSeen: seenToolResults.size,
    timeOrigin: performance.timeOrigin
  })

  const onClosed = (record: MutableRecord) => {
    record.closed = true
    record.timing.closedAt = performance.now()
    for (const waiter of closeWaiters.get(record.index) ?? []) waiter(snapshot(record))
    closeWaiters.delete(record.index)
  }

  const awaitClosed = (index: number, resume: (record: RecordedRequest) => void) => {
    const record = records[index]
    if (record !== undefined && record.closed) return resume(snapshot(record))
    closeWaiters.set(index, [...(closeWaiters.get(index) ?? []), resume])
  }

  const streamResponse = async (req: IncomingMessage, res: ServerResponse, response: StreamResponse, record: MutableRecord) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" })
    res.flushHeaders()
    for (const event of response.events) {
      if (response.delayMs > 0) await sleep(response.delayMs)
      if (res.destroyed) return
      res.write(sseText(event))
      record.timing.writtenAt.push(performance.now())
    }
    switch (response.then) {
      case "end":
        res.end()
        return
      case "drop":
        record.droppedByServer = true
        req.socket.destroy()
        return
      case "hang":
        // Nothing more is sent: the client cancels, or the server shuts down.
        return
    }
  }

  const errorResponse = (res: ServerResponse, response: ErrorResponse) => sendJson(res, response.status, response.body, response.headers)

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/"
    if (req.method === "GET" && path === "/__requests") return sendJson(res, 200, summary())
    const receivedAt = performance.now()
    const text = await readBody(req)
    const parsed = parseJson(text)
    const record: MutableRecord = {
      index: records.length,
      method: req.method ?? "",
      path,
      headers: headersOf(req),
      body: parsed.value,
      toolResultIds: parsed.ok ? toolResultIdsOf(fixture.format, parsed.value) : [],
      response: undefined,
      closedByClient: false,
      closed: false,
      droppedByServer: false,
      timing: { receivedAt, bodyReadAt: performance.now(), writtenAt: [], closedAt: undefined }
    }
    records.push(record)
    for (const id of record.toolResultIds) seenToolResults.add(id)
    res.on("close", () => {
      if (!res.writableFinished && !state.shuttingDown && !record.droppedByServer) record.closedByClient = true
      onClosed(record)
    })
    if (req.method !== "POST" || !paths[fixture.format].includes(path)) {
      return sendJson(res, 404, errorBody(fixture.format, `replay: no ${fixture.format} endpoint at ${req.method} ${path}`))
    }
    if (!parsed.ok) return sendJson(res, 400, errorBody(fixture.format, "replay: the request body is not JSON"))
    const response: ReplayResponse | undefined = responses[next]
    if (response === undefined) {
      return sendJson(res, 400, errorBody(fixture.format, `replay: the fixture has no response left (it has ${responses.length})`))
    }
    if (response.requireToolResult) {
      const missing = pendingToolCalls.filter((id) => !record.toolResultIds.includes(id))
      if (missing.length > 0) {
        return sendJson(res, 400, errorBody(fixture.format, `replay: expected tool results for ${missing.join(", ")}`))
      }
    }
    record.response = next
    next++
    if (response.kind === "error") return errorResponse(res, response)
    if (response.kind === "json") return sendJson(res, 200, response.body, response.headers)
    pendingToolCalls = toolCallIdsOf(fixture.format, response.events)
    return streamResponse(req, res, response, record)
  }

  return { handle, summary, awaitClosed }
}

const listen = (server: Server, port: number): Promise<AddressInfo> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => {
      const address = server.address()
      if (address !== null && typeof address === "object") resolve(address)
      else reject(new Error("the server has no TCP address"))
    })
  })

/** Starts a replay server for the scope's lifetime; closing the scope drops every connection. */
export const start = (
  fixture: Fixture | string,
  options: { readonly port?: number } = {}
): Effect.Effect<ReplayServer, FixtureError | ReplayServerError, Scope.Scope> =>
  Effect.gen(function* () {
    const loaded = typeof fixture === "string" ? yield* loadFixture(fixture) : fixture
    const state = { shuttingDown: false }
    const handler = makeHandler(loaded, state)
    const server = createServer((req, res) => {
      handler.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 500, errorBody(loaded.format, `replay: ${String(error)}`))
        else res.destroy()
      })
    })
    const address = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => listen(server, options.port ?? 0),
        catch: (error) => new ReplayServerError({ message: `could not listen: ${String(error)}` })
      }),
      () =>
        Effect.async<void>((resume) => {
          state.shuttingDown = true
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return {
      url: `http://127.0.0.1:${address.port}`,
      requests: Effect.sync(() => handler.summary().requests),
      summary: Effect.sync(() => handler.summary()),
      awaitClosed: (index: number) =>
        Effect.async<RecordedRequest>((resume) => handler.awaitClosed(index, (record) => resume(Effect.succeed(record))))
    }
  })
