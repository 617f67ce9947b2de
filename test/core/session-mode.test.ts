import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Stream } from "effect"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { engineLayer, replayAll, types } from "../support/engine-harness.js"
import { storeCases } from "../support/store-cases.js"

const startedMode = (events: ReadonlyArray<AgentEvent>) => events.flatMap((e) => (e.type === "turn.started" ? [e.payload.permissionMode] : []))

for (const store of storeCases.filter((c) => c.name !== "memory")) {
  describe(`the session's mode in the engine, on the ${store.name} store`, () => {
    it.scoped("a turn asking for another mode records it first; the session keeps it, also after a restart", () =>
      Effect.gen(function* () {
        const { reopen } = yield* store.location
        const script = { responses: ["one", "two", "three"] }
        const sessionId = yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
          const first = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "one", permissionMode: "plan", client: "cli" })))
          expect(types(first).slice(0, 2)).toEqual(["session.mode_changed", "turn.started"])
          expect(first[0]?.payload).toEqual({ mode: "plan", by: "cli" })
          expect(first[0]?.turnId).toBeUndefined()
          // The same mode again records nothing; none keeps the session's.
          const second = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "two", permissionMode: "plan" })))
          expect(types(second)[0]).toBe("turn.started")
          expect(startedMode(second)).toEqual(["plan"])
          expect(yield* engine.setMode(header.sessionId, "plan", "rpc")).toEqual(Option.none())
          expect((yield* engine.getSession(header.sessionId)).mode).toBe("plan")
          return header.sessionId
        }).pipe(Effect.provide(engineLayer(reopen(), script)))

        yield* Effect.gen(function* () {
          const engine = yield* SessionEngine
          expect((yield* engine.getSession(sessionId)).mode).toBe("plan")
          const third = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId, content: "three" })))
          expect(startedMode(third)).toEqual(["plan"])
          const changed = yield* engine.setMode(sessionId, "accept-edits", "acp")
          expect(Option.map(changed, (e) => e.payload)).toEqual(Option.some({ mode: "accept-edits", by: "acp" }))
          expect((yield* engine.getSession(sessionId)).mode).toBe("accept-edits")
          const log = yield* replayAll(sessionId)
          expect(log.filter((e) => e.type === "session.mode_changed").map((e) => e.payload)).toEqual([
            { mode: "plan", by: "cli" },
            { mode: "accept-edits", by: "acp" }
          ])
        }).pipe(Effect.provide(engineLayer(reopen(), script)))
      }))
  })
}
