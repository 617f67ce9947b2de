import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Schedule, Stream } from "effect"
import type { AgentEvent } from "../../src/domain/events.js"
import type { SessionListFrame } from "../../src/domain/host.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import { SessionWatchTiming, type SessionWatchTimingShape } from "../../src/host/session-watch.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { EventStore } from "../../src/services/EventStore.js"
import { MemoryStore } from "../../src/services/MemoryStore.js"
import { hostTestLayer } from "../support/host-harness.js"
import { storeCases } from "../support/store-cases.js"

const quick: SessionWatchTimingShape = { coalesce: "20 millis", poll: "100 millis", keepAlive: "1 minute" }

const hostOn = (store: Layer.Layer<EventStore, unknown>, script?: Script) =>
  hostTestLayer(store, script).pipe(Layer.provide(Layer.succeed(SessionWatchTiming, quick)))

/** Looks again every 20 ms (real time) until `check` holds, for up to 5 s. */
const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, check: (a: A) => boolean) =>
  effect.pipe(Effect.repeat({ until: check, schedule: Schedule.spaced("20 millis") }), Effect.timeout("5 seconds"))

/** A subagent's session as the engine writes its first event: `parent` names the session that started it. */
const childOf = (sessionId: string, parent: string): AgentEvent => ({
  id: `evt_${sessionId}_1`,
  schemaVersion: 1,
  sessionId,
  sequence: 1,
  timestamp: new Date().toISOString(),
  type: "session.created",
  payload: { cwd: "/work", client: "subagent", parent: { sessionId: parent, turnId: "turn_1", toolCallId: "call_1", agent: "reviewer", depth: 1 } }
})

const proposeFrom = (sessionId: string, id: string) =>
  Effect.flatMap(MemoryStore, (memory) =>
    memory.propose({
      id,
      sessionId,
      workspaceRoot: "/work",
      scope: "project",
      text: `remember ${id}`,
      evidence: { sessionId, fromSequence: 1, toSequence: 1 },
      proposedAt: new Date().toISOString()
    })
  )

const listedIds = Effect.flatMap(AgentHost, (host) => Effect.map(host.listSessions, (list) => list.map((line) => line.sessionId)))

for (const store of storeCases) {
  describe(`deleting a session, on the ${store.name} store`, () => {
    it.live("goes with its subagent sessions and their waiting memory candidates; the others stay; watchers hear Removed", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const events = yield* EventStore
        const memory = yield* MemoryStore
        const doomed = (yield* host.createSession({ cwd: "/work", client: "test", title: "Doomed" })).sessionId
        const kept = (yield* host.createSession({ cwd: "/work", client: "test", title: "Kept" })).sessionId
        yield* events.append(childOf("ses_child", doomed))
        yield* events.append(childOf("ses_grandchild", "ses_child"))
        yield* events.append(childOf("ses_other_child", kept))
        yield* proposeFrom(doomed, "cand_doomed")
        yield* proposeFrom("ses_grandchild", "cand_grandchild")
        yield* proposeFrom(kept, "cand_kept")
        const frames: Array<SessionListFrame> = []
        const watching = yield* host.watchSessions.pipe(Stream.runForEach((frame) => Effect.sync(() => frames.push(frame))), Effect.fork)
        yield* eventually(Effect.sync(() => frames.length), (n) => n > 0)

        expect(yield* host.deleteSession(doomed, "test")).toEqual([doomed, "ses_child", "ses_grandchild"])
        expect([...(yield* listedIds)].sort()).toEqual([kept, "ses_other_child"].sort())
        for (const id of [doomed, "ses_child", "ses_grandchild"]) {
          expect(yield* events.head(id)).toEqual(Option.none())
          expect((yield* Effect.flip(host.getSession(id)))._tag).toBe("SessionNotFound")
        }
        expect((yield* memory.pending).map((candidate) => candidate.id)).toEqual(["cand_kept"])
        const removed = () => frames.flatMap((frame) => (frame._tag === "Removed" ? [frame.sessionId] : []))
        yield* eventually(Effect.sync(removed), (ids) => ids.length === 3)
        expect(removed().sort()).toEqual([doomed, "ses_child", "ses_grandchild"].sort())
        // The one left works as before.
        yield* host.renameSession(kept, "Still here", "test")
        yield* Fiber.interrupt(watching)
      }).pipe(Effect.provide(hostOn(store.fresh()))))

    it.live("is refused while a turn runs, and while another process holds the session's turn lease; nothing is deleted", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const events = yield* EventStore
        const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
        yield* host.prompt({ sessionId, content: "slow" })
        const running = yield* Effect.flip(host.deleteSession(sessionId, "test"))
        expect(running).toMatchObject({ _tag: "TurnInProgress", sessionId })
        expect(running).not.toHaveProperty("elsewhere", true)
        yield* eventually(host.getSession(sessionId), (view) => !view.running)
        const before = yield* events.head(sessionId)

        // Its subagent's turn runs in another process: the lease stands for it.
        yield* events.append(childOf("ses_child", sessionId))
        const elsewhere = yield* Effect.scoped(
          Effect.flatMap(events.leases.hold("ses_child", { waitForExpiry: false }), (held) =>
            held ? Effect.flip(host.deleteSession(sessionId, "test")) : Effect.dieMessage("the lease was not free")
          )
        )
        expect(elsewhere).toMatchObject({ _tag: "TurnInProgress", sessionId: "ses_child", elsewhere: true })
        expect(yield* events.head(sessionId)).toEqual(before)
        expect(yield* events.head("ses_child")).toEqual(Option.some(1))
        // Once it is let go, the delete goes through.
        expect(yield* host.deleteSession(sessionId, "test")).toEqual([sessionId, "ses_child"])
      }).pipe(Effect.provide(hostOn(store.fresh(), { responses: [{ chunks: [{ text: "slow" }], delayMs: 300 }] }))))

    it.live("an unknown session is SessionNotFound; a deleted id's next prompt finds no session", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        expect((yield* Effect.flip(host.deleteSession("ses_nobody", "test")))._tag).toBe("SessionNotFound")
        const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
        yield* host.prompt({ sessionId, content: "hello" })
        yield* eventually(host.getSession(sessionId), (view) => !view.running)
        yield* host.deleteSession(sessionId, "test")
        expect((yield* Effect.flip(host.prompt({ sessionId, content: "again" })))._tag).toBe("SessionNotFound")
        expect(yield* listedIds).toEqual([])
      }).pipe(Effect.provide(hostOn(store.fresh()))))
  })
}

describe("deleting a session, with another process on the same SQLite file", () => {
  const sqlite = storeCases.find((store) => store.name === "sqlite")
  it.live("a watcher here hears Removed for a session the other process deleted, at its next look at the store", () =>
    Effect.gen(function* () {
      if (sqlite === undefined) return expect.unreachable()
      const location = yield* sqlite.location
      const here = yield* Layer.build(hostOn(location.reopen()))
      const host = Context.get(here, AgentHost)
      const other = Context.get(yield* Layer.build(hostOn(location.reopen())), AgentHost)
      const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
      const frames: Array<SessionListFrame> = []
      const watching = yield* host.watchSessions.pipe(Stream.runForEach((frame) => Effect.sync(() => frames.push(frame))), Effect.fork)
      yield* eventually(Effect.sync(() => frames.length), (n) => n > 0)
      expect(frames[0]).toMatchObject({ _tag: "Snapshot", sessions: [{ sessionId }] })
      yield* other.deleteSession(sessionId, "cli")
      yield* eventually(Effect.sync(() => frames.some((frame) => frame._tag === "Removed" && frame.sessionId === sessionId)), (seen) => seen)
      expect(yield* host.listSessions).toEqual([])
      yield* Fiber.interrupt(watching)
    }).pipe(Effect.scoped))
})
