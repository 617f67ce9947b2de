import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Stream } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { SessionEngine } from "../../../src/core/SessionEngine.js"
import { LocalFileAccess } from "../../../src/layers/tools/local-file-access.js"
import { McpHub } from "../../../src/services/McpHub.js"
import type { Tool, ToolContext } from "../../../src/services/ToolRouter.js"
import { awaitNoProcessMentioning, filesystemServer, makeHub, processesMentioning, tempDir } from "../../support/mcp-fixtures.js"
import { mcpEngineLayer } from "../../support/mcp-engine.js"
import { eventsOf } from "../../support/events.js"

const context = (sessionId: string, workspaceRoot: string): ToolContext => ({
  sessionId,
  toolCallId: "call-1",
  workspaceRoot,
  files: LocalFileAccess
})

const find = (tools: ReadonlyArray<Tool>, name: string): Tool => {
  const tool = tools.find((t) => t.definition.name === name)
  if (tool === undefined) throw new Error(`no tool ${name} in ${tools.map((t) => t.definition.name).join(", ")}`)
  return tool
}


describe("MCP: the reference filesystem server over stdio", () => {
  it.live("its tools are listed as mcp__<server>__<tool> and a read tool returns the file's content", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-fs-")
        writeFileSync(join(dir, "notes.txt"), "remember the milk\n")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [filesystemServer("fs", dir)])

        const tools = yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })
        const names = tools.map((t) => t.definition.name)
        expect(names).toContain("mcp__fs__read_text_file")
        expect(names).toContain("mcp__fs__write_file")
        expect(names.every((name) => name.startsWith("mcp__fs__"))).toBe(true)
        const read = find(tools, "mcp__fs__read_text_file")
        expect(read.definition.description).toMatch(/^\[MCP server fs\] /)
        expect(read.definition.inputSchema).toMatchObject({ type: "object", properties: { path: { type: "string" } } })

        const [status] = yield* hub.status("s1")
        expect(status).toMatchObject({ name: "fs", transport: "stdio", state: "ready" })
        expect(status?.tools).toEqual(names)
        expect(yield* hub.drainNotices("s1")).toEqual([{ server: "fs", state: "ready", message: `${names.length} tools` }])

        const call = yield* read.prepare({ path: join(dir, "notes.txt") }, context("s1", dir))
        expect(call).toMatchObject({ risk: "network", paths: [], outsideWorkspace: false })
        expect(call.summary).toBe(`mcp fs: read_text_file {"path":"${join(dir, "notes.txt")}"}`)
        const result = yield* call.execute
        expect(result).toEqual({ output: "remember the milk\n", isError: false, data: { _tag: "json", value: { content: "remember the milk\n" } } })

        // Not read-only: the PermissionEngine will ask by default.
        const write = yield* find(tools, "mcp__fs__write_file").prepare({ path: join(dir, "x.txt"), content: "x" }, context("s1", dir))
        expect(write.risk).toBe("network")
      })
    ))

  it.live("bad input goes back to the model; what the server refuses is an error result", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("mcp-fs-")
        const hub = yield* makeHub()
        yield* hub.configureSession("s1", dir, [filesystemServer("fs", dir)])
        const read = find(yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" }), "mcp__fs__read_text_file")

        const missing = yield* Effect.either(read.prepare({}, context("s1", dir)))
        expect(Either.isLeft(missing) && missing.left.message).toBe("path: is missing")
        const notObject = yield* Effect.either(read.prepare(["a"], context("s1", dir)))
        expect(Either.isLeft(notObject) && notObject.left.message).toBe("input: must be a JSON object")

        const outside = yield* read.prepare({ path: "/etc/hostname" }, context("s1", dir))
        const refused = yield* outside.execute
        expect(refused.isError).toBe(true)
        expect(refused.output).toMatch(/access denied|outside allowed/i)
      })
    ))

  it.live("a scripted turn calls its tools, each after a permission ask", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("mcp-turn-")
      const userConfigDir = yield* tempDir("mcp-user-")
      const file = join(dir, "hello.txt")
      const script = {
        responses: [
          { chunks: [{ toolCall: { name: "mcp__fs__write_file", input: { path: file, content: "hello from MCP\n" }, id: "w1" } }] },
          { chunks: [{ toolCall: { name: "mcp__fs__read_text_file", input: { path: file }, id: "r1" } }] },
          "The file says hello."
        ]
      }
      const run = Effect.gen(function* () {
        const engine = yield* SessionEngine
        const hub = yield* McpHub
        const { header } = yield* engine.createSession({ cwd: dir, client: "test" })
        yield* hub.configureSession(header.sessionId, dir, [filesystemServer("fs", dir)])
        const events = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "write and read it" })))

        const requested = eventsOf(events, "permission.requested").map((e) => e.payload)
        expect(requested).toHaveLength(2)
        expect(requested[0]).toMatchObject({ toolCallId: "w1", tool: "mcp__fs__write_file", risk: "network" })
        expect(requested[1]).toMatchObject({ toolCallId: "r1", tool: "mcp__fs__read_text_file", risk: "network" })
        expect(requested[0]?.summary).toContain("mcp fs: write_file")
        const resolved = eventsOf(events, "permission.resolved").map((e) => e.payload)
        expect(resolved.map((r) => [r.toolCallId, r.decision, r.by])).toEqual([
          ["w1", "allow", "user"],
          ["r1", "allow", "user"]
        ])
        const order = events.map((e) => (e.type.startsWith("permission.") || e.type.startsWith("tool.") ? `${e.type}` : "")).filter((t) => t !== "")
        expect(order).toEqual([
          "permission.requested",
          "permission.resolved",
          "tool.started",
          "tool.completed",
          "permission.requested",
          "permission.resolved",
          "tool.started",
          "tool.completed"
        ])
        const completed = eventsOf(events, "tool.completed").map((e) => e.payload)
        expect(completed[0]).toMatchObject({ toolCallId: "w1", isError: false })
        expect(completed[1]).toMatchObject({ toolCallId: "r1", isError: false, output: "hello from MCP\n" })
        expect(readFileSync(file, "utf8")).toBe("hello from MCP\n")
        expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
      })
      yield* run.pipe(
        Effect.provide(
          mcpEngineLayer(
            script,
            [
              { decision: "allow", scope: "once", by: "user" },
              { decision: "allow", scope: "once", by: "user" }
            ],
            { userConfigDir }
          )
        )
      )
    }).pipe(Effect.scoped))

  it.live("release stops the server's process; the hub's scope stops the rest", () =>
    Effect.gen(function* () {
      const first = yield* tempDir("mcp-release-a-")
      const second = yield* tempDir("mcp-release-b-")
      yield* Effect.scoped(
        Effect.gen(function* () {
          const hub = yield* makeHub()
          yield* hub.configureSession("a", first, [filesystemServer("fs", first)])
          yield* hub.configureSession("b", second, [filesystemServer("fs", second)])
          yield* hub.status("a")
          yield* hub.status("b")
          expect(processesMentioning(first)).toHaveLength(1)
          expect(processesMentioning(second)).toHaveLength(1)

          yield* hub.release("a")
          expect(yield* awaitNoProcessMentioning(first)).toEqual([])
          expect(processesMentioning(second)).toHaveLength(1)
        })
      )
      expect(yield* awaitNoProcessMentioning(second)).toEqual([])
    }).pipe(Effect.scoped))
})
