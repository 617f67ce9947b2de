import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Stream } from "effect"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { EventStore } from "../../src/services/EventStore.js"
import { advanceUntil, awaitSequence, engineLayer, replayAll, turnTypes, types } from "../support/engine-harness.js"
import { storeCases } from "../support/store-cases.js"

const textScript = (chunks: ReadonlyArray<string>, extra: Partial<{ delayMs: number; failAfter: number }> = {}): Script => ({
  responses: [{ chunks: chunks.map((text) => ({ text })), delayMs: extra.delayMs ?? 0, ...(extra.failAfter === undefined ? {} : { failAfter: extra.failAfter }) }]
})

for (const store of storeCases) {
  describe(`SessionEngine on the ${store.name} store`, () => {
    const provide = (script?: Script) => Effect.provide(engineLayer(store.fresh(), script))

    it.effect("happy path: events in order with a strict sequence, each committed before it is emitted", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const session = yield* engine.createSession({ cwd: "/work", client: "test" })
        const sessionId = session.header.sessionId
        const emitted: Array<AgentEvent> = []
        yield* engine.runTurn({ sessionId, content: "hi" }).pipe(
          Stream.tap((event) =>
            // The store must already hold the event when a consumer sees it.
            Effect.flatMap(EventStore, (s) => s.head(sessionId)).pipe(
              Effect.map((head) => {
                expect(Option.getOrElse(head, () => 0)).toBeGreaterThanOrEqual(event.sequence)
                emitted.push(event)
              })
            )
          ),
          Stream.runDrain
        )
        // An untitled session's first prompt names it.
        expect(types(emitted)).toEqual([
          "turn.started",
          "user.message",
          "session.renamed",
          "context.source",
          "context.built",
          "model.delta",
          "model.delta",
          "model.delta",
          "model.completed",
          "turn.completed"
        ])
        const log = yield* replayAll(sessionId)
        expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1))
        expect(log).toHaveLength(11)
        expect(log[0]?.type).toBe("session.created")
        expect(log.slice(1)).toEqual(emitted)
        expect(emitted.at(-1)?.payload).toEqual({ stopReason: "final" })
        expect(new Set(emitted.map((e) => e.turnId)).size).toBe(1)
      }).pipe(provide(textScript(["Hello", ", ", "world"]))))

    it.effect("a second turn continues the sequence", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        const first = yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "one" }))
        const second = yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "two" }))
        const lastOfFirst = Chunk.unsafeLast(first).sequence
        expect(Chunk.unsafeHead(second).sequence).toBe(lastOfFirst + 1)
        const log = yield* replayAll(header.sessionId)
        expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1))
        expect((yield* engine.getSession(header.sessionId)).lastSequence).toBe(log.length)
      }).pipe(provide()))

    it.effect("cancel after the first delta: no later delta, the turn ends cancelled", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        const sessionId = header.sessionId
        let cancelled = false
        const fiber = yield* engine.runTurn({ sessionId, content: "go" }).pipe(
          Stream.tap((event) =>
            event.type === "model.delta" && !cancelled
              ? Effect.zipRight(Effect.sync(() => { cancelled = true }), engine.cancelTurn(sessionId))
              : Effect.void
          ),
          Stream.runCollect,
          Effect.fork
        )
        yield* advanceUntil(Effect.map(Fiber.poll(fiber), Option.isSome))
        const events = Chunk.toArray(yield* Fiber.join(fiber))
        expect(turnTypes(events)).toEqual(["turn.started", "user.message", "session.renamed", "model.delta", "turn.completed"])
        expect(events.at(-1)?.payload).toEqual({ stopReason: "cancelled" })
        expect(yield* replayAll(sessionId)).toHaveLength(events.length + 1)
        // Cancelling again, or when idle, is a no-op; a session not in the store is not found.
        yield* engine.cancelTurn(sessionId)
        expect((yield* Effect.flip(engine.cancelTurn("ses_unknown")))._tag).toBe("SessionNotFound")
        expect((yield* engine.getSession(sessionId)).running).toBe(false)
      }).pipe(provide(textScript(["a", "b", "c"], { delayMs: 100 }))))

    it.effect("an external interruption is the same as cancel", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        const sessionId = header.sessionId
        const fiber = yield* engine.runTurn({ sessionId, content: "go" }).pipe(Stream.runCollect, Effect.fork)
        yield* advanceUntil(
          Effect.map(replayAll(sessionId), (log) => log.some((e) => e.type === "model.delta"))
        )
        yield* Fiber.interrupt(fiber)
        const log = yield* replayAll(sessionId)
        expect(turnTypes(log)).toEqual(["session.created", "turn.started", "user.message", "session.renamed", "model.delta", "turn.completed"])
        expect(log.at(-1)?.payload).toEqual({ stopReason: "cancelled" })
        // The session is free again.
        yield* advanceUntil(Effect.map(engine.getSession(sessionId), (info) => !info.running))
      }).pipe(provide(textScript(["a", "b", "c"], { delayMs: 100 }))))

    it.effect("a provider failure ends the turn with error and does not fail the stream", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        const events = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "x" })))
        expect(turnTypes(events)).toEqual([
          "turn.started",
          "user.message",
          "session.renamed",
          "model.delta",
          "model.delta",
          "model.failed",
          "turn.completed"
        ])
        expect(events.at(-2)?.payload).toMatchObject({ code: "scripted" })
        expect(events.at(-1)?.payload).toMatchObject({ stopReason: "error", errorCode: "scripted" })
      }).pipe(provide(textScript(["a", "b", "c"], { failAfter: 2 }))))

    it.effect("a second turn while one runs is refused with TurnInProgress", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        const sessionId = header.sessionId
        const first = yield* engine.runTurn({ sessionId, content: "one" }).pipe(Stream.runCollect, Effect.fork)
        yield* awaitSequence(sessionId, 3)
        const second = yield* engine.runTurn({ sessionId, content: "two" }).pipe(Stream.runCollect, Effect.flip)
        expect(second._tag).toBe("TurnInProgress")
        yield* advanceUntil(Effect.map(Fiber.poll(first), Option.isSome))
        const events = yield* Fiber.join(first)
        expect(Chunk.unsafeLast(events).payload).toEqual({ stopReason: "final" })
      }).pipe(provide(textScript(["a", "b"], { delayMs: 100 }))))

    it.effect("an unknown session is SessionNotFound", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const error = yield* engine.runTurn({ sessionId: "ses_missing", content: "x" }).pipe(Stream.runDrain, Effect.flip)
        expect(error._tag).toBe("SessionNotFound")
        expect((yield* engine.getSession("ses_missing").pipe(Effect.flip))._tag).toBe("SessionNotFound")
      }).pipe(provide()))

    it.effect("a new engine over the same store continues the session (cold recovery)", () =>
      Effect.gen(function* () {
        const location = yield* store.location
        const sharedStore = location.reopen
        const first = yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
          yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "one" }))
          return header.sessionId
        }).pipe(Effect.provide(engineLayer(sharedStore())))
        const events = yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          const info = yield* engine.getSession(first)
          expect(info.header.client).toBe("test")
          return Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: first, content: "two" })))
        }).pipe(Effect.provide(engineLayer(sharedStore())))
        const log = yield* replayAll(first).pipe(Effect.provide(sharedStore()))
        expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1))
        expect(events[0]?.sequence).toBe(log.length - events.length + 1)
        // The second engine rebuilt the conversation: the model saw both prompts.
        const reply = events.filter((e) => e.type === "model.delta").map((e) => (e.type === "model.delta" ? e.payload.text : "")).join("")
        expect(reply).toContain('"two"')
      }).pipe(Effect.scoped))

    it.effect("a turn left open by a crash is closed as interrupted before the next turn", () =>
      Effect.gen(function* () {
        const location = yield* store.location
        const sharedStore = location.reopen
        const sessionId = yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
          return header.sessionId
        }).pipe(Effect.provide(engineLayer(sharedStore())))
        // What a process that died mid-turn leaves behind.
        yield* Effect.gen(function* () {
          const s = yield* EventStore
          yield* s.appendAll([
            { id: "evt_x1", schemaVersion: 1, sessionId, turnId: "turn_dead", sequence: 2, timestamp: "2026-01-01T00:00:00.000Z", type: "turn.started", payload: { promptPreview: "dead" } },
            { id: "evt_x2", schemaVersion: 1, sessionId, turnId: "turn_dead", sequence: 3, timestamp: "2026-01-01T00:00:00.000Z", type: "user.message", payload: { content: "dead", mode: "queue" } }
          ])
        }).pipe(Effect.provide(sharedStore()))
        const events = yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          return Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId, content: "alive" })))
        }).pipe(Effect.provide(engineLayer(sharedStore())))
        expect(events[0]).toMatchObject({
          sequence: 4,
          type: "turn.completed",
          turnId: "turn_dead",
          payload: { stopReason: "error", errorCode: "interrupted" }
        })
        expect(events[1]?.type).toBe("turn.started")
      }).pipe(Effect.scoped))

    it.effect("an operation on a session opens it recovered: a turn a dead process left open is closed before the operation's own event", () =>
      Effect.gen(function* () {
        const location = yield* store.location
        const sharedStore = location.reopen
        const sessionId = yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
          return header.sessionId
        }).pipe(Effect.provide(engineLayer(sharedStore())))
        yield* Effect.gen(function* () {
          const s = yield* EventStore
          yield* s.appendAll([
            { id: "evt_x1", schemaVersion: 1, sessionId, turnId: "turn_dead", sequence: 2, timestamp: "2026-01-01T00:00:00.000Z", type: "turn.started", payload: { promptPreview: "dead" } }
          ])
        }).pipe(Effect.provide(sharedStore()))
        yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          yield* engine.setMode(sessionId, "plan", "test")
          // Nothing runs, so there is nothing to cancel; the session was opened all the same.
          yield* engine.cancelTurn(sessionId)
          expect((yield* engine.getSession(sessionId)).running).toBe(false)
        }).pipe(Effect.provide(engineLayer(sharedStore())))
        const log = yield* replayAll(sessionId).pipe(Effect.provide(sharedStore()))
        expect(types(log)).toEqual(["session.created", "turn.started", "turn.completed", "session.mode_changed"])
        expect(log[2]).toMatchObject({ turnId: "turn_dead", payload: { stopReason: "error", errorCode: "interrupted" } })
      }).pipe(Effect.scoped))
  })
}
