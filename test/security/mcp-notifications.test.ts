import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { LocalFileAccess } from "../../src/layers/tools/local-file-access.js"
import type { McpHubShape, McpServerConfig } from "../../src/services/McpHub.js"
import { makeHub, tempDir } from "../support/mcp-fixtures.js"

/**
 * An MCP server may announce `notifications/tools/list_changed` as often as it likes, and
 * each is cheap for it to send. The agent re-lists the server's tools on a notice; if every
 * notice queues its own re-list, a flood of them while one re-list is in flight piles up
 * waiting work without bound (memory, and one request per notice once the server answers).
 * Notices that arrive during a re-list must fold into at most one more.
 */
const root = fileURLToPath(new URL("../../", import.meta.url))
const floodServer: McpServerConfig = {
  name: "flood",
  command: process.execPath,
  args: ["--import", pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href, join(root, "test/support/mcp-list-flood-server.ts")],
  env: {}
}

const NOTICES = 500

const toolNames = (hub: McpHubShape) =>
  Effect.map(hub.source.tools({ sessionId: "s1", workspaceRoot: "/" }), (tools) => tools.map((tool) => tool.definition.name))

const call = (hub: McpHubShape, dir: string, name: string, input: unknown) =>
  Effect.gen(function* () {
    const tool = (yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })).find((t) => t.definition.name === name)
    if (tool === undefined) return yield* Effect.dieMessage(`no tool ${name}`)
    const prepared = yield* tool.prepare(input, { sessionId: "s1", toolCallId: "c1", workspaceRoot: dir, files: LocalFileAccess })
    return yield* prepared.execute
  })

describe("security: an MCP server flooding tools/list_changed", { timeout: 60_000 }, () => {
  it.live(`${NOTICES} notices during one re-list cause one more re-list, not ${NOTICES}`, () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-flood-")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [floodServer])
        expect(yield* toolNames(hub)).toEqual(["mcp__flood__flood", "mcp__flood__lists", "mcp__flood__v1"])

        expect(yield* call(hub, dir, "mcp__flood__flood", { count: NOTICES })).toMatchObject({ output: `sent ${NOTICES}` })
        // The held re-list (the second list) answers, then the notices that came meanwhile cause one more: the third.
        const served = () => Effect.map(toolNames(hub), (names) => Number(names.find((n) => n.startsWith("mcp__flood__v"))?.slice("mcp__flood__v".length)))
        for (let i = 0; i < 400 && (yield* served()) < 3; i++) yield* Effect.sleep("25 millis")
        expect(yield* served()).toBe(3)
        // Several round trips later, a queue of re-lists would long have sent the next one.
        for (let i = 0; i < 5; i++) {
          expect(yield* call(hub, dir, "mcp__flood__lists", {})).toMatchObject({ output: "3", isError: false })
          yield* Effect.sleep("20 millis")
        }
      })
    ))
})
