import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Stream } from "effect"
import { randomBytes } from "node:crypto"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { agentLayer } from "../../src/app/agent.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import * as PolicyApprovals from "../../src/layers/approvals/policy.js"
import { MESSAGE_LIMIT_BYTES } from "../../src/layers/tools/mcp-http-fetch.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { McpHub } from "../../src/services/McpHub.js"
import { eventsOf } from "../support/events.js"
import { startHttpServer } from "../support/mcp-http-server.js"
import { makeFixture, removeFixtures } from "./fixture.js"

/**
 * An HTTP MCP server the user configured (trusted, as a trusted project's is) answers a tool
 * call with one SSE event of 256 MiB that never ends. Without a limit the agent holds every
 * byte of it in memory, and the call then waits out its whole time limit for an answer that
 * never comes. The agent as the CLI builds it (SQLite store, scripted model, real permission
 * engine) must read no more than the message limit (plus what is in flight), fail that call
 * at once saying which server broke which limit, and go on: the honest server's call in the
 * same step works and the turn ends normally.
 */
afterAll(removeFixtures)

const MiB = 1024 * 1024
/** What may leave the server beyond what the agent read: socket buffers and the HTTP client's queue. */
const IN_FLIGHT = 16 * MiB
/** Long enough that a reader without a limit is still reading when a limited one is done; it is never waited out with the fix. */
const CALL_TIMEOUT_MS = 20_000

const call = (name: string, input: unknown, id: string) => ({ toolCall: { name, input, id } })

describe("security: an HTTP MCP server's answers are read within limits", { timeout: 90_000 }, () => {
  it.live("a 256 MiB SSE event that never ends: at most the message limit is read, the call fails at once naming it, the turn goes on", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const fx = makeFixture()
        const hostile = yield* startHttpServer({ flood: { kind: "event", bytes: 256 * MiB } })
        const honest = yield* startHttpServer()
        mkdirSync(fx.config, { recursive: true })
        writeFileSync(
          join(fx.config, "mcp.json"),
          JSON.stringify({ mcpServers: { flood: { type: "http", url: hostile.url, timeout: CALL_TIMEOUT_MS }, calc: { type: "http", url: honest.url } } })
        )
        const script: Script = { responses: [{ chunks: [call("mcp__flood__flood", {}, "c1"), call("mcp__calc__add", { a: 2, b: 3 }, "c2")] }, "done"] }
        const scriptFile = join(fx.root, `script-${randomBytes(4).toString("hex")}.json`)
        writeFileSync(scriptFile, JSON.stringify(script))

        const events = yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd: fx.ws, client: "security-suite" })
          // As `mcp list` does: the servers started (the SDK's load is lazy) before the model asks for their tools.
          const hub = yield* McpHub
          yield* hub.configureSession(header.sessionId, fx.ws, [])
          expect((yield* hub.status(header.sessionId)).map((s) => [s.name, s.state])).toEqual([
            ["flood", "ready"],
            ["calc", "ready"]
          ])
          return Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "flood me" })))
        }).pipe(
          Effect.provide(
            agentLayer({
              dataDir: fx.data,
              configDir: fx.config,
              store: "sqlite",
              model: { spec: "scripted", scriptPath: scriptFile },
              approvals: PolicyApprovals.layer("allow-all"),
              workspaceRoots: [fx.ws]
            })
          )
        )

        const sent = yield* hostile.flooded
        expect(sent).toBeLessThan(MESSAGE_LIMIT_BYTES + IN_FLIGHT)
        const said = 'MCP server "flood" sent a message over 4.0 MiB, the most it may take'
        const outputs = eventsOf(events, "tool.completed").map((e) => [e.payload.toolCallId, e.payload.output, e.payload.isError])
        expect(outputs).toEqual([
          ["c1", `${said}; the call to flood failed and the server was stopped`, true],
          ["c2", "2 + 3 = 5", false]
        ])
        expect(eventsOf(events, "mcp.notice").map((e) => e.payload)).toContainEqual({ server: "flood", state: "failed", message: `${said}; it was stopped` })
        expect(eventsOf(events, "turn.completed").map((e) => e.payload.stopReason)).toEqual(["final"])
      })
    ))
})
