import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeServerTool } from "../../../src/layers/tools/mcp-tool.js"
import { prepare } from "./workspace-fixture.js"

describe("an MCP server's tool as one of ours", () => {
  it.effect("the permission question's detail holds the whole arguments, however long (a question shows all it decides on)", () =>
    Effect.gen(function* () {
      const tool = makeServerTool("notes", "mcp__notes__write", { name: "write", inputSchema: { type: "object" } }, () => Effect.die("not called"))
      const tail = "rm -rf ~ # hidden at the end"
      const text = `${"x".repeat(20_000)}${tail}`
      const call = yield* prepare(tool, { text }, "/tmp")
      expect(call.risk).toBe("network")
      expect(call.summary.length).toBeLessThan(200)
      expect(call.detail).toContain(tail)
      expect(JSON.parse(call.detail ?? "")).toEqual({ text })
    }))
})
