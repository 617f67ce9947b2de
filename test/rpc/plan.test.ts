import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Option, Schema, Stream } from "effect"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { PermissionAnswer } from "../../src/domain/host.js"
import { PLAN_TOOL } from "../../src/domain/plan.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { applyEvent, emptyTimeline, openAsks } from "../../web/src/timeline.js"
import { eventsOf } from "../support/events.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, testClientLayer } from "../support/rpc-test-client.js"

const token = "test-token-plan-0123456789"
const dirs: Array<string> = []
const tempDir = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const web = makeWebRoot()
afterAll(web.remove)

const plan = "# Plan\n\n1. Write `a.txt`.\n\n<img src=x onerror=alert(1)>"
const propose = { chunks: [{ toolCall: { name: PLAN_TOOL, input: { plan }, id: "call_plan" } }] }
const write = { chunks: [{ toolCall: { name: "write_file", input: { path: "a.txt", content: "x" }, id: "call_write" } }] }

const E2E = testClientLayer(token).pipe(
  Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1" })),
  // Each session goes through the script from its start.
  Layer.provide(hostTestLayer(MemoryStore.layer, { responses: [propose, write, "ok"] }, { tools: localTools(sandboxOff) })),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

/** Prompts in plan mode as the web page would and answers the plan's question with `answer` once the baseline lists it. */
const planTurn = (cwd: string, answer: PermissionAnswer) =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const { sessionId } = yield* client.CreateSession({ cwd, client: "web" })
    const watching = yield* client.Subscribe({ sessionId, afterSequence: 0 }).pipe(
      Stream.filterMap((f) => (f._tag === "Event" ? Option.some(f.event) : Option.none())),
      Stream.tap((event) =>
        event.type === "plan.proposed"
          ? Effect.gen(function* () {
              // What a page that connects now sees: the open question, marked as a plan's.
              const view = yield* client.GetSession({ sessionId })
              expect(view.pendingPermissions.map((q) => ({ toolCallId: q.toolCallId, tool: q.tool, plan: q.plan }))).toEqual([
                { toolCallId: "call_plan", tool: PLAN_TOOL, plan }
              ])
              yield* client.RespondPermission({ sessionId, toolCallId: event.payload.toolCallId, answer })
            })
          : Effect.void
      ),
      Stream.takeUntil((event) => event.type === "turn.completed"),
      Stream.runCollect,
      Effect.fork
    )
    yield* client.Prompt({ sessionId, content: "add a.txt", permissionMode: "plan", client: "web" })
    const events: ReadonlyArray<AgentEvent> = Chunk.toArray(yield* watching.await.pipe(Effect.flatten))
    return { sessionId, events, mode: (yield* client.GetSession({ sessionId })).permissionMode }
  })

layer(E2E, { timeout: 30_000, excludeTestServices: true })("a plan over the RPC API and on the web timeline", (it) => {
  it.effect("approved from the web in accept-edits: recorded as the web's answer and mode change; the timeline shows the plan and who approved it", () =>
    Effect.gen(function* () {
      const cwd = tempDir("rpc-plan-")
      const { sessionId, events, mode } = yield* planTurn(cwd, { decision: "allow", scope: "once", mode: "accept-edits", client: "web" })
      expect(eventsOf(events, "plan.resolved").map((e) => e.payload)).toEqual([
        { toolCallId: "call_plan", decision: "approved", by: "user", mode: "accept-edits", client: "rpc:web" }
      ])
      expect(eventsOf(events, "session.mode_changed").map((e) => e.payload).at(-1)).toEqual({ mode: "accept-edits", by: "rpc:web" })
      expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("x")
      expect(mode).toBe("accept-edits")

      // The web page's reducer over the same events: the plan's block, no longer open, says how it ended.
      const timeline = events.reduce(applyEvent, emptyTimeline(sessionId))
      const block = timeline.blocks.find((b) => b._tag === "tool" && b.toolCallId === "call_plan")
      expect(block?._tag === "tool" ? block.plan : undefined).toEqual({
        text: plan,
        open: false,
        resolution: { decision: "approved", by: "user", mode: "accept-edits", client: "rpc:web" }
      })
      expect(openAsks(timeline)).toEqual([])
      expect(timeline.mode).toBe("accept-edits")
    })
  )

  it.effect("sent back from the web with a note: the session stays in plan mode and the write is refused", () =>
    Effect.gen(function* () {
      const cwd = tempDir("rpc-plan-back-")
      const { events, mode } = yield* planTurn(cwd, { decision: "deny", scope: "once", note: "Use b.txt instead.", client: "web" })
      expect(eventsOf(events, "plan.resolved")[0]?.payload).toEqual({ toolCallId: "call_plan", decision: "rejected", by: "user", client: "rpc:web", note: "Use b.txt instead." })
      expect(eventsOf(events, "tool.completed")[0]?.payload.output).toContain("Use b.txt instead.")
      expect(existsSync(join(cwd, "a.txt"))).toBe(false)
      expect(mode).toBe("plan")
    })
  )
})

describe("a plan's answer as the API decodes it", () => {
  it("carries one of the two modes a plan may be carried out in, never plan or bypass", () => {
    const decode = Schema.decodeUnknownEither(PermissionAnswer)
    expect(Either.isRight(decode({ decision: "allow", scope: "once", mode: "accept-edits" }))).toBe(true)
    expect(Either.isLeft(decode({ decision: "allow", scope: "once", mode: "bypass" }))).toBe(true)
    expect(Either.isLeft(decode({ decision: "allow", scope: "once", mode: "plan" }))).toBe(true)
  })

  it("the timeline keeps an open plan open until it is settled, and a turn's end closes it", () => {
    let sequence = 0
    const at = () => ({ schemaVersion: 1 as const, id: `evt_${++sequence}`, sessionId: "ses_1", turnId: "turn_1", sequence, timestamp: "2026-12-01T10:00:00.000Z" })
    const events: ReadonlyArray<AgentEvent> = [
      { ...at(), type: "turn.started", payload: { promptPreview: "p" } },
      { ...at(), type: "model.tool_call_requested", payload: { toolCallId: "call_plan", name: PLAN_TOOL, input: { plan } } },
      { ...at(), type: "plan.proposed", payload: { toolCallId: "call_plan", plan } }
    ]
    const open = events.reduce(applyEvent, emptyTimeline("ses_1"))
    expect(openAsks(open).map((b) => b.toolCallId)).toEqual(["call_plan"])
    const ended = applyEvent(open, { ...at(), type: "turn.completed", payload: { stopReason: "cancelled" } })
    expect(openAsks(ended)).toEqual([])
  })
})
