import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Stream } from "effect"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { replayAll } from "../support/engine-harness.js"
import { hostTestLayer } from "../support/host-harness.js"
import { yieldingStore } from "../support/yielding-store.js"

/** The sequences a subscriber from `after` gets until the session's `turns`-th turn ends. */
const readUntilTurns = (sessionId: string, after: number, turns: number) =>
  Effect.flatMap(AgentHost, (host) => {
    let ended = 0
    return host.subscribe(sessionId, after).pipe(
      Stream.takeUntil((frame) => frame._tag === "Event" && frame.event.type === "turn.completed" && ++ended === turns),
      Stream.runFold(new Array<number>(), (got, frame) => (frame._tag === "Event" ? [...got, frame.event.sequence] : got))
    )
  })

describe("a subscription served from the log the actor's load read", () => {
  it.live("the first subscriber takes the loaded log (read once), later ones read the store; every one gets each later sequence once, in order, live ones too", () =>
    Effect.gen(function* () {
      const host = yield* AgentHost
      const engine = yield* SessionEngine
      const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
      yield* host.prompt({ sessionId, content: "one" })
      yield* readUntilTurns(sessionId, 0, 1)
      const first = (yield* replayAll(sessionId)).length
      // A session opened again (a resumed one): its actor is loaded from the log and holds it.
      yield* engine.evict(sessionId)
      expect((yield* host.getSession(sessionId)).lastSequence).toBe(first)
      yield* host.prompt({ sessionId, content: "two" })
      const afters = [0, 3, first - 1, first, 0]
      const readers = yield* Effect.forEach(afters, (after) => Effect.fork(readUntilTurns(sessionId, after, after < first ? 2 : 1)))
      const got = yield* Effect.forEach(readers, Fiber.join)
      const log = yield* replayAll(sessionId)
      expect(log.filter((event) => event.type === "turn.completed").length).toBe(2)
      for (const [i, after] of afters.entries()) expect(got[i], `from ${after}`).toEqual(log.filter((e) => e.sequence > after).map((e) => e.sequence))
    }).pipe(
      Effect.provide(
        hostTestLayer(yieldingStore(MemoryStore.layer), {
          responses: ["the first answer", { chunks: Array.from({ length: 20 }, (_, i) => ({ text: `c${i} ` })), delayMs: 5 }]
        })
      )
    )
  )

  it.live("the loaded log is handed over once, from the sequence asked; an actor already in memory holds none", () =>
    Effect.gen(function* () {
      const host = yield* AgentHost
      const engine = yield* SessionEngine
      const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
      yield* host.prompt({ sessionId, content: "one" })
      yield* readUntilTurns(sessionId, 0, 1)
      const log = yield* replayAll(sessionId)
      // Created here: its actor never read the log.
      expect((yield* engine.recoverForReplay(sessionId, 0)).loaded).toBeUndefined()
      yield* engine.evict(sessionId)
      yield* host.getSession(sessionId)
      const taken = (yield* engine.recoverForReplay(sessionId, 2)).loaded
      expect(taken?.through).toBe(log.length)
      expect(taken?.events.map((e) => e.sequence)).toEqual(log.slice(2).map((e) => e.sequence))
      expect((yield* engine.recoverForReplay(sessionId, 0)).loaded).toBeUndefined()
    }).pipe(Effect.provide(hostTestLayer(MemoryStore.layer, { responses: ["the answer"] })))
  )
})
