import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Fiber, Layer, Stream, TestClock } from "effect"
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import type { HostFrame } from "../../src/domain/host.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { EventStore } from "../../src/services/EventStore.js"
import { replayAll, types } from "../support/engine-harness.js"
import { hostTestLayer, untilTurnsDone } from "../support/host-harness.js"

const workspaces: Array<string> = []
afterAll(() => {
  for (const dir of workspaces) rmSync(dir, { recursive: true, force: true })
})
const workspace = (files: Record<string, string> = {}) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "host-")))
  workspaces.push(dir)
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
  return dir
}

const eventsOf = (frames: ReadonlyArray<HostFrame>): ReadonlyArray<AgentEvent> =>
  frames.flatMap((f) => (f._tag === "Event" ? [f.event] : []))

/** Every turn.started is closed before the next one starts. */
const turnsNeverOverlap = (log: ReadonlyArray<AgentEvent>) => {
  let open: string | undefined
  for (const event of log) {
    if (event.type === "turn.started") {
      if (open !== undefined) return false
      open = event.turnId
    }
    if (event.type === "turn.completed") open = undefined
  }
  return open === undefined
}

const toolCall = (name: string, input: unknown) => ({ toolCall: { name, input } })

describe("AgentHost", () => {
  it.effect("concurrent prompts on one session never overlap turns: one starts, the rest queue", () =>
    Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
      const watcher = yield* untilTurnsDone(host.subscribe(sessionId, 0), 5).pipe(Effect.fork)
      const receipts = yield* Effect.all(
        [0, 1, 2, 3, 4].map((i) => host.prompt({ sessionId, content: `prompt ${i}` })),
        { concurrency: "unbounded" }
      )
      expect(receipts.filter((r) => r._tag === "Started")).toHaveLength(1)
      expect(receipts.filter((r) => r._tag === "Queued")).toHaveLength(4)
      yield* TestClock.adjust("10 seconds")
      const frames = yield* Fiber.join(watcher)
      const log = yield* replayAll(sessionId)
      expect(turnsNeverOverlap(log)).toBe(true)
      expect(log.filter((e) => e.type === "turn.started")).toHaveLength(5)
      expect(eventsOf(frames)).toEqual(log)
      expect((yield* host.getSession(sessionId)).running).toBe(false)
    }).pipe(Effect.provide(hostTestLayer(MemoryStore.layer, { responses: [0, 1, 2, 3, 4].map(() => ({ chunks: [{ text: "ok" }], delayMs: 50 })) }))))

  it.live("a steer joins the running turn at its next step; a queued message starts the next turn", () => {
    const cwd = workspace({ "a.txt": "alpha" })
    const script: Script = {
      responses: [
        { chunks: [toolCall("read_file", { path: "a.txt" })], delayMs: 150 },
        { chunks: [{ text: "done A" }], delayMs: 10 },
        "done C"
      ]
    }
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const watcher = yield* untilTurnsDone(host.subscribe(sessionId, 0), 2).pipe(Effect.fork)
      const a = yield* host.prompt({ sessionId, content: "A" })
      const b = yield* host.prompt({ sessionId, content: "B", mode: "steer" })
      const c = yield* host.prompt({ sessionId, content: "C" })
      expect([a._tag, b._tag, c._tag]).toEqual(["Started", "Queued", "Queued"])
      yield* Fiber.join(watcher)
      const log = yield* replayAll(sessionId)
      const messages = log.flatMap((e) => (e.type === "user.message" ? [[e.payload.content, e.payload.mode, e.turnId]] : []))
      const firstTurn = log.find((e) => e.type === "turn.started")?.turnId
      expect(messages).toEqual([
        ["A", "queue", firstTurn],
        ["B", "steer", firstTurn],
        ["C", "queue", expect.not.stringMatching(firstTurn ?? "")]
      ])
      // B was read after the tool result, before the second model step.
      const order = types(log)
      expect(order.indexOf("tool.completed")).toBeLessThan(log.findIndex((e) => e.type === "user.message" && e.payload.mode === "steer"))
      expect(log.filter((e) => e.type === "inbox.updated").at(-1)?.payload).toEqual({ nextTurn: [], nextStep: [] })
      expect(turnsNeverOverlap(log)).toBe(true)
    }).pipe(Effect.provide(hostTestLayer(MemoryStore.layer, script, { tools: localTools(sandboxOff) })))
  })

  it.live("queued messages can be edited, deleted and promoted; every change is an event", () =>
    Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
      const watcher = yield* untilTurnsDone(host.subscribe(sessionId, 0), 3).pipe(Effect.fork)
      yield* host.prompt({ sessionId, content: "first" })
      const ids = []
      for (const content of ["x", "y", "z"]) {
        const receipt = yield* host.prompt({ sessionId, content })
        if (receipt._tag === "Queued") ids.push(receipt.messageId)
      }
      const [x, y, z] = ids
      if (x === undefined || y === undefined || z === undefined) return expect.unreachable()
      yield* host.editQueue(sessionId, x, { _tag: "Edit", content: "x2" })
      yield* host.editQueue(sessionId, y, { _tag: "Delete" })
      yield* host.editQueue(sessionId, z, { _tag: "Promote" })
      const view = yield* host.getSession(sessionId)
      expect(view.inbox).toEqual({ nextTurn: [{ id: x, content: "x2" }], nextStep: [{ id: z, content: "z" }] })
      const missing = yield* host.editQueue(sessionId, y, { _tag: "Delete" }).pipe(Effect.flip)
      expect(missing._tag).toBe("QueuedMessageNotFound")
      yield* Fiber.join(watcher)
      const log = yield* replayAll(sessionId)
      expect(log.filter((e) => e.type === "inbox.updated").length).toBeGreaterThanOrEqual(6)
      // The promoted message came too late for a step boundary: it starts the next turn, before the queue.
      const prompts = log.flatMap((e) => (e.type === "user.message" ? [e.payload.content] : []))
      expect(prompts).toEqual(["first", "z", "x2"])
    }).pipe(
      Effect.provide(hostTestLayer(MemoryStore.layer, { responses: [{ chunks: [{ text: "slow" }], delayMs: 200 }, "two", "three"] }))
    ))

  it.effect("a late subscriber gets a baseline with the open permission question, and any client may answer it once", () => {
    const cwd = workspace()
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const asked = yield* Deferred.make<void>()
      const first = yield* host.subscribe(sessionId, 0).pipe(
        Stream.tap((f) => (f._tag === "Event" && f.event.type === "permission.requested" ? Deferred.succeed(asked, undefined) : Effect.void)),
        Stream.takeUntil((f) => f._tag === "Event" && f.event.type === "turn.completed"),
        Stream.runCollect,
        Effect.fork
      )
      yield* host.prompt({ sessionId, content: "write it" })
      yield* Deferred.await(asked)
      const late = yield* host.subscribe(sessionId, 0).pipe(Stream.take(1), Stream.runCollect)
      const baseline = Chunk.unsafeHead(late)
      if (baseline._tag !== "Baseline") return expect.unreachable()
      expect(baseline.session.running).toBe(true)
      expect(baseline.session.pendingPermissions).toHaveLength(1)
      const question = baseline.session.pendingPermissions[0]
      expect(question).toMatchObject({ tool: "write_file", risk: "write" })
      const unknown = yield* host.respondPermission(sessionId, "call_nope", { decision: "allow", scope: "once" }).pipe(Effect.flip)
      expect(unknown._tag).toBe("PermissionNotPending")
      yield* host.respondPermission(sessionId, question?.toolCallId ?? "", { decision: "allow", scope: "once" })
      const again = yield* host.respondPermission(sessionId, question?.toolCallId ?? "", { decision: "deny", scope: "once" }).pipe(Effect.flip)
      expect(again._tag).toBe("PermissionNotPending")
      const events = eventsOf(Chunk.toArray(yield* Fiber.join(first)))
      expect(events.find((e) => e.type === "permission.resolved")?.payload).toMatchObject({ decision: "allow", by: "user" })
      expect(readFileSync(join(cwd, "w.txt"), "utf8")).toBe("hi")
      expect((yield* host.getSession(sessionId)).pendingPermissions).toEqual([])
    }).pipe(
      Effect.provide(
        hostTestLayer(MemoryStore.layer, { responses: [{ chunks: [toolCall("write_file", { path: "w.txt", content: "hi" })] }, "written"] }, { tools: localTools(sandboxOff) })
      )
    )
  })

  it.effect("a cancel settles the open question and the session takes the next prompt", () => {
    const cwd = workspace()
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const asked = yield* Deferred.make<void>()
      const watcher = yield* host.subscribe(sessionId, 0).pipe(
        Stream.tap((f) => (f._tag === "Event" && f.event.type === "permission.requested" ? Deferred.succeed(asked, undefined) : Effect.void)),
        (s) => untilTurnsDone(s, 2),
        Effect.fork
      )
      yield* host.prompt({ sessionId, content: "run it" })
      yield* Deferred.await(asked)
      yield* host.cancel(sessionId)
      expect((yield* host.getSession(sessionId)).pendingPermissions).toEqual([])
      yield* host.prompt({ sessionId, content: "again" })
      const events = eventsOf(yield* Fiber.join(watcher))
      const completions = events.filter((e) => e.type === "turn.completed").map((e) => e.payload)
      expect(completions).toEqual([{ stopReason: "cancelled" }, { stopReason: "final" }])
      expect(events.find((e) => e.type === "permission.resolved")?.payload).toMatchObject({ decision: "cancelled" })
    }).pipe(
      Effect.provide(hostTestLayer(MemoryStore.layer, { responses: [{ chunks: [toolCall("shell", { command: "true" })] }, "second"] }, { tools: localTools(sandboxOff) }))
    )
  })

  it.effect("a slow subscriber does not stall the turn: it is dropped with its last sequence and resumes from it", () =>
    Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
      const stall = yield* Deferred.make<void>()
      const seen: Array<number> = []
      const slow = yield* host.subscribe(sessionId, 0).pipe(
        Stream.runForEach((f) =>
          f._tag === "Event" ? Effect.zipRight(Effect.sync(() => seen.push(f.event.sequence)), f.event.sequence === 3 ? Deferred.await(stall) : Effect.void) : Effect.void
        ),
        Effect.flip,
        Effect.fork
      )
      yield* host.prompt({ sessionId, content: "talk a lot" })
      // The turn runs to its end while the slow reader sits on sequence 3.
      while ((yield* host.getSession(sessionId)).running) yield* Effect.yieldNow()
      const log = yield* replayAll(sessionId)
      expect(log.at(-1)?.type).toBe("turn.completed")
      yield* Deferred.succeed(stall, undefined)
      const error = yield* Fiber.join(slow)
      expect(error._tag).toBe("SubscriberLagged")
      // The host names the last sequence it handed on; a reader resumes from the last it read.
      if (error._tag === "SubscriberLagged") expect(error.lastSequence).toBeGreaterThanOrEqual(3)
      const rest = yield* untilTurnsDone(host.subscribe(sessionId, seen.at(-1) ?? 0), 1)
      expect([...seen, ...eventsOf(rest).map((e) => e.sequence)]).toEqual(log.map((e) => e.sequence))
    }).pipe(
      Effect.provide(
        hostTestLayer(MemoryStore.layer, { responses: [{ chunks: Array.from({ length: 60 }, (_, i) => ({ text: `w${i} ` })) }] }, { subscriberBuffer: 8 })
      )
    ))

  it.effect("cold recovery: a turn left open by a dead process is closed as interrupted when the session is reopened", () => {
    const store = Layer.memoize(MemoryStore.layer)
    return Effect.gen(function* () {
      const shared = yield* store
      const sessionId = "ses_dead"
      yield* Effect.flatMap(EventStore, (s) =>
        s.appendAll([
          { id: "e1", schemaVersion: 1, sessionId, sequence: 1, timestamp: "2026-01-01T00:00:00.000Z", type: "session.created", payload: { cwd: "/work", client: "test" } },
          { id: "e2", schemaVersion: 1, sessionId, turnId: "turn_dead", sequence: 2, timestamp: "2026-01-01T00:00:01.000Z", type: "turn.started", payload: { promptPreview: "x" } }
        ])
      ).pipe(Effect.provide(shared))
      const view = yield* Effect.flatMap(AgentHost, (host) => host.getSession(sessionId)).pipe(Effect.provide(hostTestLayer(shared)))
      expect(view.running).toBe(false)
      expect(view.lastSequence).toBe(3)
      const log = yield* replayAll(sessionId).pipe(Effect.provide(shared))
      expect(log.at(-1)).toMatchObject({ type: "turn.completed", turnId: "turn_dead", payload: { stopReason: "error", errorCode: "interrupted" } })
      const listed = yield* Effect.flatMap(AgentHost, (host) => host.listSessions).pipe(Effect.provide(hostTestLayer(shared)))
      expect(listed.map((s) => s.sessionId)).toEqual([sessionId])
    }).pipe(Effect.scoped)
  })

  it.effect("unknown sessions are typed errors everywhere", () =>
    Effect.gen(function* () {
      const host = yield* AgentHost
      expect((yield* host.getSession("ses_x").pipe(Effect.flip))._tag).toBe("SessionNotFound")
      expect((yield* host.prompt({ sessionId: "ses_x", content: "hi" }).pipe(Effect.flip))._tag).toBe("SessionNotFound")
      expect((yield* host.subscribe("ses_x", 0).pipe(Stream.runDrain, Effect.flip))._tag).toBe("SessionNotFound")
      expect((yield* host.cancel("ses_x").pipe(Effect.flip))._tag).toBe("SessionNotFound")
    }).pipe(Effect.provide(hostTestLayer(MemoryStore.layer))))
})
