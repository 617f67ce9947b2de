import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { noMcp } from "../../../src/layers/tools/mcp-none.js"
import { McpHub } from "../../../src/services/McpHub.js"

describe("noMcp: a hub with no servers", () => {
  it.effect("lists no tools, instructions, notices or servers, and accepts configuration and release", () =>
    Effect.gen(function* () {
      const hub = yield* McpHub
      const scope = { sessionId: "s1", workspaceRoot: "/work" }
      yield* hub.configureSession("s1", "/work", [{ name: "fs", command: "mcp-fs", args: [], env: {} }])
      expect(yield* hub.source.tools(scope)).toEqual([])
      expect(yield* hub.instructions("s1")).toEqual([])
      expect(yield* hub.drainNotices("s1")).toEqual([])
      expect(yield* hub.status("s1")).toEqual([])
      yield* hub.release("s1")
    }).pipe(Effect.provide(noMcp)))

  it.effect("refuses to read an attached resource with an McpError", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(Effect.flatMap(McpHub, (hub) => hub.readResource("s1", "file:///notes.txt")))
      expect(error._tag).toBe("McpError")
      expect(error.message).toContain("no MCP servers")
    }).pipe(Effect.provide(noMcp)))
})
