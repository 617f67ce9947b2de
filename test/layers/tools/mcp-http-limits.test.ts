import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { LocalFileAccess } from "../../../src/layers/tools/local-file-access.js"
import { MESSAGE_LIMIT_BYTES, REQUEST_STREAM_LIMIT_BYTES } from "../../../src/layers/tools/mcp-http-fetch.js"
import type { McpHubShape } from "../../../src/services/McpHub.js"
import type { Flood } from "../../support/mcp-flood.js"
import { startHttpServer } from "../../support/mcp-http-server.js"
import { makeHub, tempDir } from "../../support/mcp-fixtures.js"

const MiB = 1024 * 1024
/** Far more than any limit: a reader without one would take it all. */
const HUGE = 256 * MiB
/**
 * What may leave the server beyond what the client read: the kernel's socket buffers on both
 * sides (a few MiB each on loopback) and the HTTP client's own queue; some 4 MiB here.
 */
const IN_FLIGHT = 16 * MiB

const callTool = (hub: McpHubShape, root: string, name: string, input: unknown) =>
  Effect.gen(function* () {
    const tools = yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })
    const tool = tools.find((t) => t.definition.name === name)
    if (tool === undefined) return yield* Effect.dieMessage(`no tool ${name}`)
    const call = yield* tool.prepare(input, { sessionId: "s1", toolCallId: "c", workspaceRoot: root, files: LocalFileAccess })
    return yield* call.execute
  })

/** A hostile server `flood` and an honest one `calc`, both over HTTP, in one session. */
const floodedSession = (flood: Flood, timeoutMs?: number) =>
  Effect.gen(function* () {
    const hostile = yield* startHttpServer({ flood })
    const honest = yield* startHttpServer()
    const root = yield* tempDir("mcp-limits-")
    const hub = yield* makeHub()
    yield* hub.configureSession("s1", root, [
      { name: "flood", url: hostile.url, headers: {}, ...(timeoutMs === undefined ? {} : { timeoutMs }) },
      { name: "calc", url: honest.url, headers: {} }
    ])
    expect((yield* hub.status("s1")).map((s) => [s.name, s.state])).toEqual([
      ["flood", "ready"],
      ["calc", "ready"]
    ])
    return { hub, root, hostile }
  })

/** The flood's call ends with the limit named, the server is stopped, little of the flood was read, and the honest server still answers. */
const cutOff = (flood: Flood, limit: string, limitBytes: number) =>
  Effect.scoped(
    Effect.gen(function* () {
      const { hub, root, hostile } = yield* floodedSession(flood)
      const result = yield* callTool(hub, root, "mcp__flood__flood", {})
      const said = `MCP server "flood" sent ${limit} over ${limitBytes / MiB}.0 MiB, the most it may take`
      expect(result).toMatchObject({ isError: true, output: `${said}; the call to flood failed and the server was stopped` })
      const sent = yield* hostile.flooded
      expect(sent).toBeGreaterThan(limitBytes)
      expect(sent).toBeLessThan(limitBytes + IN_FLIGHT)
      const [status] = yield* hub.status("s1")
      expect(status).toMatchObject({ name: "flood", state: "failed", message: `${said}; it was stopped`, tools: [] })
      expect(yield* hub.drainNotices("s1")).toContainEqual({ server: "flood", state: "failed", message: `${said}; it was stopped` })
      expect(yield* callTool(hub, root, "mcp__calc__add", { a: 2, b: 3 })).toMatchObject({ output: "2 + 3 = 5", isError: false })
    })
  )

describe("MCP over HTTP: every response is read within limits", () => {
  it.live("a 256 MiB JSON answer is cut off at the message limit", () => cutOff({ kind: "json", bytes: HUGE }, "a message", MESSAGE_LIMIT_BYTES))

  it.live("a 256 MiB SSE event is cut off at the message limit", () => cutOff({ kind: "event", bytes: HUGE }, "a message", MESSAGE_LIMIT_BYTES))

  it.live("small events without end for one request are cut off at the request stream's limit", () =>
    cutOff({ kind: "events", bytes: HUGE }, "an event stream answering one request", REQUEST_STREAM_LIMIT_BYTES)
  )

  it.live("answers within the limits pass whole: a 3 MiB answer, and 12 MiB of notifications before an answer", () =>
    Effect.scoped(
      Effect.gen(function* () {
        for (const flood of [{ kind: "json", bytes: 3 * MiB }, { kind: "events", bytes: 12 * MiB }] as const) {
          const { hub, root } = yield* floodedSession(flood)
          const result = yield* callTool(hub, root, "mcp__flood__flood", {})
          expect(result.isError, flood.kind).toBe(false)
          expect(result.output.length, flood.kind).toBeGreaterThanOrEqual(flood.kind === "json" ? 3 * MiB : "done".length)
          expect((yield* hub.status("s1"))[0]?.state, flood.kind).toBe("ready")
        }
      })
    ))

  it.live("a server that sends headers and then trickles for ever fails the call at its time limit", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const { hub, root } = yield* floodedSession({ kind: "trickle", everyMs: 20 }, 500)
        const result = yield* callTool(hub, root, "mcp__flood__flood", {})
        expect(result).toMatchObject({ isError: true, output: 'MCP server "flood" did not answer flood within 0.5 s; the call was cancelled' })
      })
    ))
})
