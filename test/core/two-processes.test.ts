import { describe, expect, it } from "@effect/vitest"
import { Chunk, Context, Effect, Layer, Stream } from "effect"
import { join } from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import * as SqliteStore from "../../src/layers/event-store/sqlite.js"
import type * as Scripted from "../../src/layers/model/scripted.js"
import { EventStore } from "../../src/services/EventStore.js"
import { engineLayer } from "../support/engine-harness.js"
import { tempDir } from "../support/mcp-fixtures.js"

const LEASE_TTL_MS = 1_500

/**
 * Two processes on one data directory (`serve` and `run --session`), as two engines on one
 * SQLite file: the store's turn lease is all they share. One runs a turn with a message queued
 * behind it; the other must take nothing from that inbox and write nothing to the log.
 */
describe("two processes on one session", () => {
  it.live("the second process is refused while the first runs a turn; its queued message runs there, once, and nothing is written by the refusal", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("two-processes-")
        const file = join(dir, "events.db")
        // A shorter lease than the default 10 s: the refused process watches the holder for a third of
        // it (and a margin) before it gives up, twice here; the holder renews at that third either way.
        const opened = () => SqliteStore.layer({ filename: file, leaseTtlMs: LEASE_TTL_MS })
        const engineOn = (script: Scripted.Script) =>
          Effect.map(Layer.build(engineLayer(opened(), script)), (context) => Context.get(context, SessionEngine.SessionEngine))
        const log = Effect.flatMap(EventStore, (store) => Stream.runCollect(store.replay(sessionId))).pipe(
          Effect.map(Chunk.toArray),
          Effect.provide(opened())
        )
        const userMessages = (events: ReadonlyArray<AgentEvent>) =>
          events.flatMap((event) => (event.type === "user.message" ? [event.payload.content] : []))

        const serve = yield* engineOn({ responses: [{ chunks: [{ text: "slow" }], delayMs: 60_000 }, "ran the queued one"] })
        const run = yield* engineOn({ responses: ["from the second process"] })
        const { header } = yield* serve.createSession({ cwd: dir, client: "test" })
        const sessionId = header.sessionId
        expect((yield* serve.prompt({ sessionId, content: "first" }))._tag).toBe("Started")
        expect((yield* serve.prompt({ sessionId, content: "queued behind it" }))._tag).toBe("Queued")
        const before = yield* log

        // A prompt, one that also changes the mode, and a resume of the waiting inbox.
        const refused = yield* Effect.flip(run.prompt({ sessionId, content: "from elsewhere", permissionMode: "bypass" }))
        expect(refused).toMatchObject({ _tag: "TurnInProgress", elsewhere: true })
        expect(refused.message).toContain("another process")
        const resumed = yield* Effect.either(run.resume(sessionId))
        if (resumed._tag === "Left") expect(resumed.left).toMatchObject({ _tag: "TurnInProgress", elsewhere: true })
        expect(yield* log).toEqual(before)

        yield* serve.cancelTurn(sessionId)
        const done = yield* Effect.gen(function* () {
          for (;;) {
            const events = yield* log
            const ends = events.filter((event) => event.type === "turn.completed")
            if (ends.length === 2) return events
            yield* Effect.sleep("20 millis")
          }
        }).pipe(Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => new Error("the queued message never ran") }))
        expect(userMessages(done)).toEqual(["first", "queued behind it"])
        expect(done.some((event) => event.type === "session.mode_changed")).toBe(false)
        const last = done.filter((event) => event.type === "turn.completed").at(-1)
        expect(last?.payload).toMatchObject({ stopReason: "final" })
      })
    ))
})
