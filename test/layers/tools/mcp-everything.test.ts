import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber } from "effect"
import { LocalFileAccess } from "../../../src/layers/tools/local-file-access.js"
import type { McpHubShape } from "../../../src/services/McpHub.js"
import { everythingServer, makeHub, tempDir, testServer } from "../../support/mcp-fixtures.js"

const call = (hub: McpHubShape, root: string, name: string, input: unknown) =>
  Effect.gen(function* () {
    const tool = (yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })).find((t) => t.definition.name === name)
    if (tool === undefined) return yield* Effect.dieMessage(`no tool ${name}`)
    const prepared = yield* tool.prepare(input, { sessionId: "s1", toolCallId: "c", workspaceRoot: root, files: LocalFileAccess })
    return yield* prepared.execute
  })

/** One hub with the everything server (and our small server beside it) for the session "s1". */
const withEverything = <A, E>(test: (hub: McpHubShape, root: string) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const root = yield* tempDir("mcp-everything-")
      const hub = yield* makeHub()
      yield* hub.configureSession("s1", root, [everythingServer("everything"), testServer("small")])
      return yield* test(hub, root)
    })
  )

describe("MCP: the reference everything server over stdio", () => {
  it.live("its tools, minus the ones that only run as tasks, and its instructions", () =>
    withEverything((hub) =>
      Effect.gen(function* () {
        const names = (yield* hub.source.tools({ sessionId: "s1", workspaceRoot: "/" })).map((t) => t.definition.name)
        expect(names).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__trigger-long-running-operation"]))
        expect(names).not.toContain("mcp__everything__simulate-research-query")
        const instructions = yield* hub.instructions("s1")
        expect(instructions.map((i) => i.server)).toEqual(["everything", "small"])
        expect(instructions[0]?.text).toContain("Everything Server")
        expect(instructions[1]?.text).toBe("Use echo to repeat things back.")
        // Its post-initialize list_changed names no change we had not seen: no tools_changed notice.
        const notices = yield* hub.drainNotices("s1")
        // The two start side by side: either may be ready first.
        expect(notices.map((n) => `${n.server} ${n.state}`).sort()).toEqual(["everything ready", "small ready"])
      })
    ))

  it.live("text, images and structured content come back as text and JSON data", () =>
    withEverything((hub, root) =>
      Effect.gen(function* () {
        expect(yield* call(hub, root, "mcp__everything__get-sum", { a: 2, b: 40 })).toEqual({ output: "The sum of 2 and 40 is 42.", isError: false })
        const image = yield* call(hub, root, "mcp__everything__get-tiny-image", {})
        expect(image.isError).toBe(false)
        expect(image.output).toMatch(/\[image: image\/png, [\d.]+ (bytes|KiB)\]/)
        const weather = yield* call(hub, root, "mcp__everything__get-structured-content", { location: "New York" })
        expect(weather.data).toMatchObject({ _tag: "json", value: { temperature: expect.any(Number), conditions: expect.any(String) } })
      })
    ))

  it.live("resources are read by URI, listed or from a template; an unknown URI is an McpError", () =>
    withEverything((hub) =>
      Effect.gen(function* () {
        const listed = yield* hub.readResource("s1", "demo://resource/static/document/features.md")
        expect(listed).toMatchObject({ uri: "demo://resource/static/document/features.md", mimeType: "text/markdown" })
        expect(listed.text).toContain("# Everything Server - Features")
        const templated = yield* hub.readResource("s1", "demo://resource/dynamic/text/3")
        expect(templated).toMatchObject({ mimeType: "text/plain" })
        expect(templated.text).toMatch(/^Resource 3: This is a plaintext resource/)
        const missing = yield* Effect.either(hub.readResource("s1", "demo://resource/nowhere"))
        expect(Either.isLeft(missing) && missing.left._tag).toBe("McpError")
        expect(Either.isLeft(missing) && missing.left.message).toContain("no MCP server of this session has the resource demo://resource/nowhere")
      })
    ))

  it.live("interrupting its long-running operation ends the call at once; the server keeps serving", () =>
    withEverything((hub, root) =>
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(call(hub, root, "mcp__everything__trigger-long-running-operation", { duration: 60, steps: 60 }))
        yield* Effect.sleep("300 millis")
        yield* Fiber.interrupt(fiber)
        expect((yield* hub.status("s1"))[0]?.state).toBe("ready")
        expect(yield* call(hub, root, "mcp__everything__echo", { message: "still here" })).toMatchObject({ isError: false, output: "Echo: still here" })
      })
    ))
})
