import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Scope, Stream } from "effect"
import type { EventStoreError } from "../../../src/domain/errors.js"
import type { AgentEvent } from "../../../src/domain/events.js"
import type { EventStoreShape } from "../../../src/services/EventStore.js"
import { archived, created, delta, range, renamed, replayAll, turnCompleted, turnFailed, turnStarted } from "./fixtures.js"
import type { StoreSubject } from "./stores.js"


const expectConflict = (effect: Effect.Effect<void, EventStoreError>, expected: number, actual: number) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(effect)
    expect(error._tag).toBe("SequenceConflict")
    expect(error).toMatchObject({ expected, actual })
  })

const sequences = (events: ReadonlyArray<AgentEvent>) => events.map((e) => e.sequence)

/** The behaviour every EventStore layer shares, run unchanged on each of them. */
export const eventStoreContract = (subject: StoreSubject) =>
  describe(`EventStore contract: ${subject.name}`, () => {
    const fresh = Effect.flatMap(subject.location, (location) => location.open)

    it.scopedLive("replays appended events in order, equal to what was appended", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        const events = range("ses_a", 1, 12)
        for (const event of events) yield* store.append(event)
        expect(yield* replayAll(store, "ses_a")).toEqual(events)
      }))

    it.scopedLive("replays only the events after a sequence", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.appendAll(range("ses_a", 1, 8))
        expect(sequences(yield* replayAll(store, "ses_a", 3))).toEqual([4, 5, 6, 7, 8])
        expect(sequences(yield* replayAll(store, "ses_a", 0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
        expect(yield* replayAll(store, "ses_a", 8)).toEqual([])
        expect(yield* replayAll(store, "ses_a", 50)).toEqual([])
      }))

    it.scopedLive("knows nothing of a session that has no events", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        expect(yield* replayAll(store, "ses_none")).toEqual([])
        expect(yield* store.head("ses_none")).toEqual(Option.none())
        expect(yield* store.listSessions).toEqual([])
      }))

    it.scopedLive("head is the last sequence", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.append(created("ses_a"))
        expect(yield* store.head("ses_a")).toEqual(Option.some(1))
        yield* store.appendAll(range("ses_a", 2, 7))
        expect(yield* store.head("ses_a")).toEqual(Option.some(7))
      }))

    it.scopedLive("rejects duplicate, out-of-order and gapped sequences, then takes the right next one", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* expectConflict(store.append(delta("ses_a", 2)), 1, 2)
        yield* store.appendAll(range("ses_a", 1, 3))
        yield* expectConflict(store.append(delta("ses_a", 3)), 4, 3)
        yield* expectConflict(store.append(delta("ses_a", 1)), 4, 1)
        yield* expectConflict(store.append(delta("ses_a", 6)), 4, 6)
        expect(yield* store.head("ses_a")).toEqual(Option.some(3))
        yield* store.append(delta("ses_a", 4))
        expect(sequences(yield* replayAll(store, "ses_a"))).toEqual([1, 2, 3, 4])
      }))

    it.scopedLive("appendAll writes a batch, and an empty batch is a no-op", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.appendAll([])
        expect(yield* store.head("ses_a")).toEqual(Option.none())
        const batch = range("ses_a", 1, 5)
        yield* store.appendAll(batch)
        yield* store.appendAll([])
        expect(yield* replayAll(store, "ses_a")).toEqual(batch)
      }))

    it.scopedLive("a batch with a bad sequence anywhere writes nothing", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.appendAll(range("ses_a", 1, 3))
        const gapInMiddle = [delta("ses_a", 4), delta("ses_a", 5), delta("ses_a", 7), delta("ses_a", 8)]
        yield* expectConflict(store.appendAll(gapInMiddle), 6, 7)
        const repeatInMiddle = [delta("ses_a", 4), delta("ses_a", 4)]
        yield* expectConflict(store.appendAll(repeatInMiddle), 5, 4)
        expect(yield* store.head("ses_a")).toEqual(Option.some(3))
        expect(sequences(yield* replayAll(store, "ses_a"))).toEqual([1, 2, 3])
        // A new session whose batch breaks mid-way leaves no trace, not even in the listing.
        yield* expectConflict(store.appendAll([created("ses_b"), delta("ses_b", 3)]), 2, 3)
        expect(yield* store.head("ses_b")).toEqual(Option.none())
        expect((yield* store.listSessions).map((s) => s.sessionId)).toEqual(["ses_a"])
        yield* store.appendAll(range("ses_a", 4, 6))
        expect(sequences(yield* replayAll(store, "ses_a"))).toEqual([1, 2, 3, 4, 5, 6])
      }))

    it.scopedLive("a batch mixing sessions is a defect and writes nothing", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        const exit = yield* Effect.exit(store.appendAll([created("ses_a"), delta("ses_b", 2)]))
        expect(Exit.isFailure(exit) && exit.cause._tag === "Die").toBe(true)
        expect(yield* store.head("ses_a")).toEqual(Option.none())
        expect(yield* store.head("ses_b")).toEqual(Option.none())
      }))

    it.scopedLive("of 50 fibers racing for the same sequence exactly one wins", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.appendAll(range("ses_a", 1, 2))
        const results = yield* Effect.forEach(
          Array.from({ length: 50 }, (_, i) => i),
          (i) => Effect.either(store.append(delta("ses_a", 3, `racer ${i}`))),
          { concurrency: "unbounded" }
        )
        const winners = results.filter((r) => r._tag === "Right")
        const losers = results.flatMap((r) => (r._tag === "Left" ? [r.left._tag] : []))
        expect(winners).toHaveLength(1)
        expect(losers).toEqual(Array.from({ length: 49 }, () => "SequenceConflict"))
        const events = yield* replayAll(store, "ses_a")
        expect(sequences(events)).toEqual([1, 2, 3])
        expect(events[2]?.type === "model.delta" && events[2].payload.text).toMatch(/^racer \d+$/)
      }))

    it.scopedLive("50 fibers appending through head + retry leave a gap-free log with each event once", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.append(created("ses_a"))
        const appendNext = (writer: number): Effect.Effect<void, EventStoreError> =>
          Effect.gen(function* () {
            const head = Option.getOrElse(yield* store.head("ses_a"), () => 0)
            yield* Effect.yieldNow()
            yield* store.append(delta("ses_a", head + 1, `writer ${writer}`))
          }).pipe(Effect.catchTag("SequenceConflict", () => appendNext(writer)))
        yield* Effect.forEach(Array.from({ length: 50 }, (_, i) => i), appendNext, { concurrency: "unbounded" })
        const events = yield* replayAll(store, "ses_a")
        expect(sequences(events)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1))
        const texts = events.flatMap((e) => (e.type === "model.delta" ? [e.payload.text] : [])).sort()
        expect(texts).toEqual(Array.from({ length: 50 }, (_, i) => `writer ${i}`).sort())
      }))

    it.scopedLive("an interrupted append either happened or did not: the log stays consistent", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.append(created("ses_a"))
        for (let round = 0; round < 40; round++) {
          const head = Option.getOrElse(yield* store.head("ses_a"), () => 0)
          const fiber = yield* Effect.fork(store.appendAll([delta("ses_a", head + 1), delta("ses_a", head + 2)]))
          // Interrupt at a different point of the append each round.
          for (let i = 0; i < round % 8; i++) yield* Effect.yieldNow()
          if (round % 3 === 0) yield* Effect.sleep(`${round % 4} millis`)
          yield* Fiber.interrupt(fiber)
          const after = Option.getOrElse(yield* store.head("ses_a"), () => 0)
          expect([head, head + 2]).toContain(after)
          yield* store.append(delta("ses_a", after + 1))
        }
        const events = yield* replayAll(store, "ses_a")
        expect(sequences(events)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1))
      }))

    it.scopedLive("deletes a session's log and listing line, leaving the others; its id starts again at 1", () =>
      Effect.gen(function* () {
        const location = yield* subject.location
        const store = yield* location.open
        yield* store.appendAll([created("ses_gone", { title: "Gone" }), ...range("ses_gone", 2, 6).slice(0), archived("ses_gone", 7, true)])
        yield* store.appendAll(range("ses_kept", 1, 3))
        yield* store.deleteSession("ses_gone")
        expect(yield* replayAll(store, "ses_gone")).toEqual([])
        expect(yield* store.head("ses_gone")).toEqual(Option.none())
        expect((yield* store.listSessions).map((s) => s.sessionId)).toEqual(["ses_kept"])
        expect(sequences(yield* replayAll(store, "ses_kept"))).toEqual([1, 2, 3])
        // A new instance over the same data (another process) finds it gone too.
        const reopened = yield* location.open
        expect(yield* reopened.head("ses_gone")).toEqual(Option.none())
        expect((yield* reopened.listSessions).map((s) => s.sessionId)).toEqual(["ses_kept"])
        // Where it left off is not where a new log starts.
        yield* expectConflict(store.append(delta("ses_gone", 8)), 1, 8)
        yield* store.append(created("ses_gone", { title: "Again" }))
        expect(yield* store.listSessions).toContainEqual(expect.objectContaining({ sessionId: "ses_gone", title: "Again", lastSequence: 1 }))
        expect(yield* replayAll(store, "ses_gone")).toEqual([created("ses_gone", { title: "Again" })])
        // Nothing there is nothing to do; an id that breaks the rule is refused.
        yield* store.deleteSession("ses_never")
        expect((yield* Effect.flip(store.deleteSession("../x")))._tag).toBe("InvalidSessionId")
      }))

    it.scopedLive("lists sessions newest activity first with their headers", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        yield* store.append(created("ses_old", { time: 10, title: "Old one", model: "m-1", cwd: "/old" }))
        yield* store.append(created("ses_new", { time: 20, cwd: "/new" }))
        yield* store.append(created("ses_busy", { time: 5, title: "Busy" }))
        // No header: its first event is not session.created.
        yield* store.append({ ...delta("ses_bare", 1, "hi", 15), type: "turn.started", payload: { promptPreview: "hi" } })
        yield* store.appendAll([delta("ses_busy", 2, "a", 30), delta("ses_busy", 3, "b", 40)])
        const list = yield* store.listSessions
        expect(list.map((s) => s.sessionId)).toEqual(["ses_busy", "ses_new", "ses_bare", "ses_old"])
        expect(list[0]).toEqual({
          sessionId: "ses_busy",
          createdAt: created("ses_busy", { time: 5 }).timestamp,
          updatedAt: delta("ses_busy", 3, "b", 40).timestamp,
          lastSequence: 3,
          cwd: "/work/ses_busy",
          client: "test",
          title: "Busy"
        })
        expect(list[3]).toEqual({
          sessionId: "ses_old",
          createdAt: created("ses_old", { time: 10 }).timestamp,
          updatedAt: created("ses_old", { time: 10 }).timestamp,
          lastSequence: 1,
          cwd: "/old",
          client: "test",
          title: "Old one",
          model: "m-1"
        })
        expect(list[1]).toMatchObject({ sessionId: "ses_new", cwd: "/new", lastSequence: 1 })
        expect(list[1]).not.toHaveProperty("title")
        // Its turn.started opened a turn that is not completed.
        expect(list[2]).toEqual({
          sessionId: "ses_bare",
          createdAt: delta("ses_bare", 1, "hi", 15).timestamp,
          updatedAt: delta("ses_bare", 1, "hi", 15).timestamp,
          lastSequence: 1,
          openTurnId: "turn_1"
        })
      }))

    it.scopedLive("the listing follows renames, archiving and the open turn; replay has the events; a new instance lists the same", () =>
      Effect.gen(function* () {
        const location = yield* subject.location
        const store = yield* location.open
        const listed = (s: EventStoreShape) => Effect.map(s.listSessions, (list) => list.find((summary) => summary.sessionId === "ses_a"))
        const log = [created("ses_a", { title: "First" }), renamed("ses_a", 2, "Second"), archived("ses_a", 3, true), turnStarted("ses_a", 4, "turn_a")]
        yield* store.append(log[0] ?? created("ses_a"))
        yield* store.appendAll(log.slice(1))
        expect(yield* listed(store)).toEqual({
          sessionId: "ses_a",
          createdAt: created("ses_a").timestamp,
          updatedAt: turnStarted("ses_a", 4, "turn_a").timestamp,
          lastSequence: 4,
          cwd: "/work/ses_a",
          client: "test",
          title: "Second",
          archived: true,
          openTurnId: "turn_a"
        })
        expect(yield* replayAll(store, "ses_a")).toEqual(log)
        // One at a time too (a single append is the hot path's own case in some stores).
        yield* store.append(turnCompleted("ses_a", 5, "turn_a"))
        yield* store.append(archived("ses_a", 6, false))
        yield* store.append(renamed("ses_a", 7, "Third"))
        const after = yield* listed(store)
        expect(after).toMatchObject({ title: "Third", lastSequence: 7, lastStopReason: "final" })
        expect(after).not.toHaveProperty("archived")
        expect(after).not.toHaveProperty("openTurnId")
        // A listing read from storage alone, by an instance that saw none of the appends.
        const reopened = yield* location.open
        expect(yield* listed(reopened)).toEqual(after)
        // The last completed turn's ending, whichever turn it was: a failed one after a fine one.
        yield* store.appendAll([turnStarted("ses_a", 8, "turn_b"), turnFailed("ses_a", 9, "turn_b")])
        expect(yield* listed(store)).toMatchObject({ lastStopReason: "error" })
        expect(yield* listed(yield* location.open)).toMatchObject({ lastStopReason: "error" })
      }))

    it.scopedLive("a turn lease has one holder at a time, is live while held and free once its scope closes", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        const first = yield* Scope.make()
        expect(yield* Scope.extend(store.leases.hold("ses_a", { waitForExpiry: false }), first)).toBe(true)
        expect(yield* Effect.scoped(store.leases.hold("ses_a", { waitForExpiry: false }))).toBe(false)
        // Held in an uninterruptible region too (the engine holds one while committing): released with its scope.
        expect(yield* Effect.uninterruptible(Effect.scoped(store.leases.hold("ses_b", { waitForExpiry: false })))).toBe(true)
        expect([...(yield* store.leases.live)]).toEqual(["ses_a"])
        yield* Scope.close(first, Exit.void)
        expect([...(yield* store.leases.live)]).toEqual([])
        expect(yield* Effect.scoped(store.leases.hold("ses_a", { waitForExpiry: true }))).toBe(true)
      }))

    it.scopedLive("keeps interleaved sessions apart", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        const ids = ["ses_x", "ses_y", "ses_z"]
        for (let sequence = 1; sequence <= 20; sequence++) {
          for (const id of ids) yield* store.append(range(id, sequence, sequence)[0] ?? created(id))
        }
        for (const id of ids) {
          expect(yield* replayAll(store, id)).toEqual(range(id, 1, 20))
          expect(yield* store.head(id)).toEqual(Option.some(20))
        }
      }))

    it.scopedLive("replays a 10,000-event session equal to what was appended", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        const events = range("ses_long", 1, 10_000)
        for (let from = 0; from < events.length; from += 500) yield* store.appendAll(events.slice(from, from + 500))
        expect(yield* replayAll(store, "ses_long")).toEqual(events)
        expect(sequences(yield* replayAll(store, "ses_long", 9_990))).toEqual(
          Array.from({ length: 10 }, (_, i) => 9_991 + i)
        )
      }))

    it.scopedLive("a replay ends at the head it saw when it started, whatever is appended meanwhile", () =>
      Effect.gen(function* () {
        const store = yield* fresh
        // More than one page of every layer, so later pages are read after the append.
        yield* store.appendAll(range("ses_a", 1, 2_500))
        let appended = false
        const replayed = yield* store.replay("ses_a").pipe(
          Stream.tap(() =>
            appended
              ? Effect.void
              : Effect.zipRight(
                  Effect.sync(() => {
                    appended = true
                  }),
                  store.append(delta("ses_a", 2_501))
                )
          ),
          Stream.runCount
        )
        expect(appended).toBe(true)
        expect(replayed).toBe(2_500)
        expect(yield* store.head("ses_a")).toEqual(Option.some(2_501))
        expect(sequences(yield* replayAll(store, "ses_a", 2_499))).toEqual([2_500, 2_501])
      }))

    it.scopedLive("a new instance over the same data continues where the last one left off", () =>
      Effect.gen(function* () {
        const location = yield* subject.location
        const first = yield* location.open
        yield* first.appendAll(range("ses_a", 1, 5))
        yield* first.append(created("ses_b"))
        const second = yield* location.open
        expect(yield* second.head("ses_a")).toEqual(Option.some(5))
        yield* expectConflict(second.append(delta("ses_a", 5)), 6, 5)
        yield* second.append(delta("ses_a", 6))
        expect(yield* replayAll(second, "ses_a")).toEqual(range("ses_a", 1, 6))
        // Appending first, without asking head, also finds the tail.
        yield* second.append(delta("ses_b", 2))
        expect((yield* second.listSessions).map((s) => [s.sessionId, s.lastSequence])).toEqual([
          ["ses_a", 6],
          ["ses_b", 2]
        ])
      }))
  })
