import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Fiber, Option, Stream } from "effect"
import { forEachPulled } from "../../src/core/for-each-pulled.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { EventStore } from "../../src/services/EventStore.js"
import { DirectPull } from "../../src/core/direct-pull.js"
import { advanceUntil, awaitSequence, engineLayer, replayAll, turnTypes, types } from "../support/engine-harness.js"
import { storeCases } from "../support/store-cases.js"

const text = (chunks: ReadonlyArray<string>, delayMs = 0): Script => ({
  responses: [{ chunks: chunks.map((t) => ({ text: t })), delayMs }]
})

/** Reads a turn as the CLI and the host do: through the pull the turn's stream carries. */
const readPulled = (turn: Stream.Stream<AgentEvent, unknown>, onEvent: (event: AgentEvent) => Effect.Effect<void, unknown, EventStore> = () => Effect.void) =>
  Effect.gen(function* () {
    const seen: Array<AgentEvent> = []
    yield* forEachPulled(turn, (event) => Effect.zipRight(onEvent(event), Effect.sync(() => void seen.push(event))))
    return seen
  })

for (const store of storeCases) {
  describe(`SessionEngine turns read through their pull, on the ${store.name} store`, () => {
    const provide = (script?: Script) => Effect.provide(engineLayer(store.fresh(), script))

    it.effect("a turn's stream carries its pull, which gives what the stream gives, each event committed before it is seen", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const first = (yield* engine.createSession({ cwd: "/work", client: "test" })).header.sessionId
        const second = (yield* engine.createSession({ cwd: "/work", client: "test" })).header.sessionId
        const turn = engine.runTurn({ sessionId: second, content: "hi" })
        expect(DirectPull in turn).toBe(true)
        const streamed = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: first, content: "hi" })))
        const pulled = yield* readPulled(turn, (event) =>
          Effect.flatMap(EventStore, (s) => s.head(second)).pipe(
            Effect.map((head) => expect(Option.getOrElse(head, () => 0)).toBeGreaterThanOrEqual(event.sequence))
          )
        )
        expect(types(pulled)).toEqual(types(streamed))
        expect(pulled.map((e) => e.sequence)).toEqual(streamed.map((e) => e.sequence))
        expect((yield* replayAll(second)).slice(1)).toEqual(pulled)
        expect(pulled.at(-1)?.payload).toEqual({ stopReason: "final" })
      }).pipe(provide(text(["Hello", ", ", "world"]))))

    it.effect("interrupting the reader cancels the turn and frees the session", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const sessionId = (yield* engine.createSession({ cwd: "/work", client: "test" })).header.sessionId
        const fiber = yield* Effect.fork(readPulled(engine.runTurn({ sessionId, content: "go" })))
        yield* advanceUntil(Effect.map(replayAll(sessionId), (log) => log.some((e) => e.type === "model.delta")))
        yield* Fiber.interrupt(fiber)
        const log = yield* replayAll(sessionId)
        expect(turnTypes(log)).toEqual(["session.created", "turn.started", "user.message", "session.renamed", "model.delta", "turn.completed"])
        expect(log.at(-1)?.payload).toEqual({ stopReason: "cancelled" })
        yield* advanceUntil(Effect.map(engine.getSession(sessionId), (info) => !info.running))
      }).pipe(provide(text(["a", "b", "c"], 100))))

    it.effect("a reader that stops early ends the turn cancelled", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const sessionId = (yield* engine.createSession({ cwd: "/work", client: "test" })).header.sessionId
        const fiber = yield* Effect.fork(
          forEachPulled(engine.runTurn({ sessionId, content: "go" }), (event) => (event.type === "model.delta" ? Effect.fail("enough") : Effect.void))
        )
        yield* advanceUntil(Effect.map(Fiber.poll(fiber), Option.isSome))
        expect(yield* Fiber.await(fiber)).toEqual(Exit.fail("enough"))
        yield* advanceUntil(Effect.map(engine.getSession(sessionId), (info) => !info.running))
        const log = yield* replayAll(sessionId)
        expect(log.at(-1)).toMatchObject({ type: "turn.completed", payload: { stopReason: "cancelled" } })
        expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1))
      }).pipe(provide(text(["a", "b", "c"], 100))))

    it.effect("opening the pull fails with TurnInProgress while a turn runs, and with SessionNotFound for an unknown session", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const sessionId = (yield* engine.createSession({ cwd: "/work", client: "test" })).header.sessionId
        const first = yield* Effect.fork(readPulled(engine.runTurn({ sessionId, content: "one" })))
        yield* awaitSequence(sessionId, 3)
        const second = yield* Effect.flip(readPulled(engine.runTurn({ sessionId, content: "two" })))
        expect(second).toMatchObject({ _tag: "TurnInProgress" })
        const missing = yield* Effect.flip(readPulled(engine.runTurn({ sessionId: "ses_missing", content: "x" })))
        expect(missing).toMatchObject({ _tag: "SessionNotFound" })
        yield* advanceUntil(Effect.map(Fiber.poll(first), Option.isSome))
        expect((yield* Fiber.join(first)).at(-1)?.payload).toEqual({ stopReason: "final" })
      }).pipe(provide(text(["a", "b"], 100))))
  })
}
