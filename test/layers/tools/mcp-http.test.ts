import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { LocalFileAccess } from "../../../src/layers/tools/local-file-access.js"
import { startHttpServer } from "../../support/mcp-http-server.js"
import { makeHub, tempDir } from "../../support/mcp-fixtures.js"

describe("MCP: a Streamable HTTP server", () => {
  // The user's file: a project's expands no variable.
  it.live("configured by url in the user's mcp.json, with a header from the environment: tools listed and called", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startHttpServer({ token: "s3cret" })
        const root = yield* tempDir("mcp-http-")
        const userConfigDir = yield* tempDir("mcp-http-user-")
        writeFileSync(
          join(userConfigDir, "mcp.json"),
          JSON.stringify({ mcpServers: { calc: { type: "http", url: server.url, headers: { Authorization: "Bearer ${MCP_TEST_TOKEN}" } } } })
        )
        const hub = yield* makeHub({ userConfigDir, env: { MCP_TEST_TOKEN: "s3cret" } })
        yield* hub.configureSession("s1", root, [])

        const tools = yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })
        expect(tools.map((t) => t.definition.name)).toEqual(["mcp__calc__add"])
        expect(yield* hub.status("s1")).toEqual([{ name: "calc", transport: "http", origin: "user", state: "ready", tools: ["mcp__calc__add"] }])
        expect(yield* hub.instructions("s1")).toEqual([{ server: "calc", text: "Adds numbers over HTTP." }])

        const add = tools[0]
        if (add === undefined) return yield* Effect.dieMessage("no add tool")
        const call = yield* add.prepare({ a: 2, b: 3 }, { sessionId: "s1", toolCallId: "c", workspaceRoot: root, files: LocalFileAccess })
        expect(call).toMatchObject({ risk: "network", summary: 'mcp calc: add {"a":2,"b":3}' })
        expect(yield* call.execute).toEqual({ output: "2 + 3 = 5", isError: false, data: { _tag: "json", value: { sum: 5 } } })
        expect(server.requests()).toBeGreaterThan(0)
        yield* hub.release("s1")
      })
    ))

  it.live("a server that refuses our credentials is failed with the HTTP status; nothing got through", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const server = yield* startHttpServer({ token: "s3cret" })
        const root = yield* tempDir("mcp-http-")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", root, [{ name: "calc", url: server.url, headers: { Authorization: "Bearer wrong" } }])
        const [status] = yield* hub.status("s1")
        expect(status).toMatchObject({ name: "calc", transport: "http", state: "failed", tools: [] })
        expect(status?.message).toContain(`cannot connect to ${server.url}: HTTP 401`)
        expect(server.requests()).toBe(0)
      })
    ))
})
