import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, FastCheck, Fiber, Stream } from "effect"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import { sessionLogProblem } from "../../src/domain/session-log.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { EventStore } from "../../src/services/EventStore.js"
import { replayAll } from "../support/engine-harness.js"
import { storeCases } from "../support/store-cases.js"
import { recordingStore, removeSubagentDirs, subagentEngine, subagentWorkspace } from "../support/subagent-fixture.js"

afterAll(removeSubagentDirs)

/**
 * One level of a delegation tree, as the scripted model plays it for every session of that
 * level: some task calls (run at once), maybe a read, maybe a provider failure, then an answer.
 */
const level = FastCheck.record({
  tasks: FastCheck.integer({ min: 0, max: 4 }),
  read: FastCheck.boolean(),
  /** The first response fails after this many chunks. */
  failAfter: FastCheck.oneof(
    { arbitrary: FastCheck.constant(undefined), weight: 4 },
    { arbitrary: FastCheck.integer({ min: 0, max: 3 }), weight: 1 }
  ),
  /** Milliseconds before each chunk of the final answer, so cancels land mid-answer too. */
  delayMs: FastCheck.integer({ min: 0, max: 3 })
})

const tree = {
  top: level,
  mid: level,
  // Leaves at the depth limit: their task calls are refused.
  leaf: level,
  /** Cancel the top-level turn once the store took this many appends (none: let it finish). */
  cancelAt: FastCheck.option(FastCheck.integer({ min: 1, max: 150 }), { nil: undefined, freq: 3 })
}

type Level = typeof level extends FastCheck.Arbitrary<infer L> ? L : never

const responsesOf = (name: string, plan: Level, child: string) => [
  {
    chunks: [
      ...Array.from({ length: plan.tasks }, (_, i) => ({ toolCall: { name: "task", input: { agent: child, prompt: `${name} asks ${child} #${i}` } } })),
      ...(plan.read ? [{ toolCall: { name: "read_file", input: { path: "notes.txt" } } }] : [])
    ],
    ...(plan.failAfter === undefined ? {} : { failAfter: plan.failAfter })
  },
  { chunks: [{ text: `${name} ` }, { text: "answers" }], delayMs: plan.delayMs }
]

const scriptOf = (top: Level, mid: Level, leaf: Level): Script => ({
  responses: responsesOf("top", top, "mid"),
  agents: { mid: { responses: responsesOf("mid", mid, "leaf") }, leaf: { responses: responsesOf("leaf", leaf, "leaf") } }
})

const agents = [
  { name: "mid", description: "Delegates to leaves", body: "You are in the middle." },
  { name: "leaf", description: "Answers", body: "You are a leaf." }
]

for (const store of storeCases.filter((s) => s.name !== "jsonl (fail)")) {
  describe(`subagent trees on the ${store.name} store`, () => {
    it.live.prop(
      "over random trees of delegation, failure and cancel points: every session's log holds its invariants and no child outlives its parent's turn",
      tree,
      ({ top, mid, leaf, cancelAt }) => {
        const cwd = subagentWorkspace(agents, { "notes.txt": "alpha\n" })
        const order: Array<string> = []
        return Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd, client: "test" })
          const rootId = header.sessionId
          const turn = yield* Stream.runDrain(engine.runTurn({ sessionId: rootId, content: "go" })).pipe(Effect.exit, Effect.fork)
          if (cancelAt !== undefined) {
            const watcher = Effect.gen(function* () {
              while (order.length < cancelAt) yield* Effect.sleep("1 millis")
              yield* engine.cancelTurn(rootId)
            })
            yield* Effect.raceFirst(Effect.asVoid(Fiber.await(turn)), watcher)
          }
          expect(Exit.isSuccess(yield* Fiber.join(turn))).toBe(true)

          const listing = yield* (yield* EventStore).listSessions
          const sessions = listing.map((s) => s.sessionId)
          const logs = new Map<string, ReadonlyArray<AgentEvent>>()
          for (const id of sessions) logs.set(id, yield* replayAll(id))
          for (const [id, log] of logs) {
            expect(sessionLogProblem(log), id).toBeUndefined()
            expect(invariantProblem(log)?.message, id).toBeUndefined()
            const created = log[0]
            const parent = created?.type === "session.created" ? created.payload.parent : undefined
            // The listing names each child's parent, and no other session's.
            expect(listing.find((s) => s.sessionId === id)?.parentSessionId).toBe(parent?.sessionId)
            if (parent === undefined) continue
            expect(parent.depth).toBeLessThanOrEqual(2)
            // The parent's turn closes after every event of the child.
            const parentClosed = order.indexOf(`${parent.sessionId} turn.completed`)
            expect(parentClosed).toBeGreaterThanOrEqual(0)
            expect(order.slice(parentClosed).some((entry) => entry.startsWith(`${id} `))).toBe(false)
          }
          // Nothing is left working.
          expect(yield* engine.runningSessions).toEqual(new Set())
        }).pipe(Effect.provide(subagentEngine(scriptOf(top, mid, leaf), { store: recordingStore(order, store.fresh()) })))
      },
      // Thirty trees of real turns: seconds at a quiet hour, more under load.
      { fastCheck: { numRuns: 30 }, timeout: 120_000 }
    )
  })
}
