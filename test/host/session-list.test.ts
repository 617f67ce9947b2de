import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Fiber, Layer, Schedule, Stream } from "effect"
import type { SessionListFrame, SessionListItem } from "../../src/domain/host.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import { SessionWatchTiming, type SessionWatchTimingShape } from "../../src/host/session-watch.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { EventStore } from "../../src/services/EventStore.js"
import { replayAll } from "../support/engine-harness.js"
import { type HostHarnessOptions, hostTestLayer } from "../support/host-harness.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { leftOpenLog } from "../support/left-open-log.js"
import { storeCases } from "../support/store-cases.js"

const quick: SessionWatchTimingShape = { coalesce: "20 millis", poll: "100 millis", keepAlive: "150 millis" }

const hostOn = (store: Layer.Layer<EventStore, unknown>, script?: Script, timing: SessionWatchTimingShape = quick, options?: HostHarnessOptions) =>
  hostTestLayer(store, script, options).pipe(Layer.provide(Layer.succeed(SessionWatchTiming, timing)))

/** Looks again every 20 ms (real time) until `check` holds, for up to 5 s. */
const eventually = <A, E, R>(effect: Effect.Effect<A, E, R>, check: (a: A) => boolean) =>
  effect.pipe(Effect.repeat({ until: check, schedule: Schedule.spaced("20 millis") }), Effect.timeout("5 seconds"))

const lineOf = (sessionId: string) =>
  Effect.flatMap(AgentHost, (host) => Effect.map(host.listSessions, (list) => list.find((line) => line.sessionId === sessionId)))

/** Prompts and waits until the session is idle again. */
const promptAndSettle = (sessionId: string, content: string) =>
  Effect.gen(function* () {
    const host = yield* AgentHost
    yield* host.prompt({ sessionId, content })
    yield* eventually(host.getSession(sessionId), (view) => !view.running)
  })

/** The session's lines in the snapshot and the updates, in order. */
const linesOf = (frames: ReadonlyArray<SessionListFrame>, sessionId: string): ReadonlyArray<SessionListItem> =>
  frames.flatMap((frame) =>
    frame._tag === "Snapshot" ? frame.sessions.filter((line) => line.sessionId === sessionId) : frame._tag === "Updated" && frame.session.sessionId === sessionId ? [frame.session] : []
  )

const updatesOf = (frames: ReadonlyArray<SessionListFrame>, sessionId: string): ReadonlyArray<SessionListItem> =>
  frames.flatMap((frame) => (frame._tag === "Updated" && frame.session.sessionId === sessionId ? [frame.session] : []))

describe("the session list, with another process on the same SQLite file", () => {
  const sqlite = storeCases.find((store) => store.name === "sqlite")
  it.live("an append by the other process does not trip this one: renaming works on the log as it is now", () =>
    Effect.gen(function* () {
      if (sqlite === undefined) return expect.unreachable()
      const location = yield* sqlite.location
      const here = yield* Layer.build(hostOn(location.reopen()))
      const host = Context.get(here, AgentHost)
      const other = Context.get(yield* Layer.build(location.reopen()), EventStore)
      const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
      yield* other.append({
        id: "evt_other",
        schemaVersion: 1,
        sessionId,
        sequence: 2,
        timestamp: new Date().toISOString(),
        type: "session.archived",
        payload: { archived: true, by: "cli" }
      })
      yield* host.renameSession(sessionId, "Mine", "web")
      expect((yield* replayAll(sessionId).pipe(Effect.provide(here))).map((event) => event.type)).toEqual([
        "session.created",
        "session.archived",
        "session.renamed"
      ])
      expect(yield* lineOf(sessionId).pipe(Effect.provide(here))).toMatchObject({ title: "Mine", archived: true })
    }).pipe(Effect.scoped))
})

for (const store of storeCases) {
  describe(`the session list, on the ${store.name} store`, () => {
    it.live("rename and archive reach the listing, the session's view and its log; archived sessions stay listed", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test", title: "Draft" })
        yield* host.renameSession(sessionId, "  Release notes  ", "web")
        yield* host.archiveSession(sessionId, true, "web")
        expect(yield* lineOf(sessionId)).toMatchObject({ title: "Release notes", archived: true, status: "idle", running: false })
        expect((yield* host.getSession(sessionId)).title).toBe("Release notes")
        yield* host.archiveSession(sessionId, false, "cli")
        expect(yield* lineOf(sessionId)).toMatchObject({ title: "Release notes", archived: false })
        const log = yield* replayAll(sessionId)
        expect(log.slice(1).map((event) => [event.type, event.payload])).toEqual([
          ["session.renamed", { title: "Release notes", by: "web" }],
          ["session.archived", { archived: true, by: "web" }],
          ["session.archived", { archived: false, by: "cli" }]
        ])
      }).pipe(Effect.provide(hostOn(store.fresh()))))

    it.live("an unknown session is SessionNotFound; a blank title is refused before anything is written", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        expect((yield* Effect.flip(host.renameSession("ses_nope", "x", "web")))._tag).toBe("SessionNotFound")
        expect((yield* Effect.flip(host.archiveSession("ses_nope", true, "web")))._tag).toBe("SessionNotFound")
        const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
        const blank = yield* Effect.exit(host.renameSession(sessionId, "   ", "web"))
        expect(Exit.isFailure(blank) && blank.cause._tag === "Die").toBe(true)
        expect(yield* replayAll(sessionId)).toHaveLength(1)
      }).pipe(Effect.provide(hostOn(store.fresh()))))

    it.live("an untitled session's first prompt names it (by auto); later prompts and titled sessions keep their title", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const untitled = (yield* host.createSession({ cwd: "/work", client: "acp" })).sessionId
        const titled = (yield* host.createSession({ cwd: "/work", client: "cli", title: "Mine" })).sessionId
        yield* promptAndSettle(untitled, "  fix the\n  flaky   test in the release pipeline before friday please  ")
        yield* promptAndSettle(untitled, "and another thing")
        yield* promptAndSettle(titled, "hello")
        const renames = (sessionId: string) =>
          Effect.map(replayAll(sessionId), (log) => log.flatMap((event) => (event.type === "session.renamed" ? [event] : [])))
        const [auto, ...more] = yield* renames(untitled)
        expect(more).toEqual([])
        expect(auto?.payload).toEqual({ title: "fix the flaky test in the release pipeline before friday pl…", by: "auto" })
        expect(auto?.turnId).toBeDefined()
        expect(yield* lineOf(untitled)).toMatchObject({ title: "fix the flaky test in the release pipeline before friday pl…" })
        expect(yield* renames(titled)).toEqual([])
        expect(yield* lineOf(titled)).toMatchObject({ title: "Mine" })
      }).pipe(Effect.provide(hostOn(store.fresh(), { responses: ["one", "two", "three"] }))))

    it.live("a turn shows running while it runs; one a dead process left open shows interrupted with no question pending, until the session is opened", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
        yield* host.prompt({ sessionId, content: "slow" })
        expect(yield* lineOf(sessionId)).toMatchObject({ status: "running", running: true })
        yield* eventually(lineOf(sessionId), (line) => line?.status === "idle")

        yield* Effect.flatMap(EventStore, (s) => s.appendAll(leftOpenLog("ses_dead")))
        expect(yield* lineOf("ses_dead")).toMatchObject({ status: "interrupted", running: false })
        const view = yield* host.getSession("ses_dead")
        expect(view.pendingPermissions).toEqual([])
        expect(view.running).toBe(false)
        // Opening it closed the turn nobody runs, so it is idle now.
        expect((yield* replayAll("ses_dead")).at(-1)).toMatchObject({
          type: "turn.completed",
          turnId: "turn_dead",
          payload: { stopReason: "error", errorCode: "interrupted" }
        })
        expect(yield* lineOf("ses_dead")).toMatchObject({ status: "idle" })
      }).pipe(Effect.provide(hostOn(store.fresh(), { responses: [{ chunks: [{ text: "slow" }], delayMs: 300 }] }))))

    it.live("a session whose turn waits on a question says how many wait; one whose last turn failed says so, until a turn ends well", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const cwd = mkdtempSync(join(tmpdir(), "session-list-questions-"))
        const { sessionId } = yield* host.createSession({ cwd, client: "test" })
        const frames: Array<SessionListFrame> = []
        const watching = yield* host.watchSessions.pipe(Stream.runForEach((frame) => Effect.sync(() => frames.push(frame))), Effect.fork)
        yield* host.prompt({ sessionId, content: "write it" })
        yield* eventually(lineOf(sessionId), (line) => line?.waitingQuestions === 1)
        expect(yield* lineOf(sessionId)).toMatchObject({ status: "running", waitingQuestions: 1 })
        yield* eventually(Effect.sync(() => linesOf(frames, sessionId)), (lines) => lines.some((line) => line.waitingQuestions === 1))
        const [question] = (yield* host.getSession(sessionId)).pendingPermissions
        yield* host.respondPermission(sessionId, question?.toolCallId ?? "", { decision: "deny", scope: "once" })
        // The turn goes on to its next request, which the script fails.
        yield* eventually(lineOf(sessionId), (line) => line?.status === "idle")
        const failed = yield* lineOf(sessionId)
        expect(failed).toMatchObject({ lastStopReason: "error" })
        expect(failed).not.toHaveProperty("waitingQuestions")
        yield* eventually(Effect.sync(() => linesOf(frames, sessionId)), (lines) => lines.at(-1)?.lastStopReason === "error")
        expect(linesOf(frames, sessionId).at(-1)).not.toHaveProperty("waitingQuestions")
        yield* promptAndSettle(sessionId, "again")
        expect(yield* lineOf(sessionId)).toMatchObject({ status: "idle", lastStopReason: "final" })
        yield* Fiber.interrupt(watching)
      }).pipe(
        Effect.provide(
          hostOn(
            store.fresh(),
            { responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "w.txt", content: "hi" } } }] }, { failAfter: 0, error: { code: "overloaded" } }, "fine"] },
            quick,
            { tools: localTools(sandboxOff) }
          )
        )
      ))

    it.live("a watcher gets the list, then one update per changed session: a rename, a new session, a status; keep-alives while quiet", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const first = (yield* host.createSession({ cwd: "/work", client: "test", title: "First" })).sessionId
        const frames: Array<SessionListFrame> = []
        const watching = yield* host.watchSessions.pipe(
          Stream.runForEach((frame) => Effect.sync(() => frames.push(frame))),
          Effect.fork
        )
        yield* eventually(Effect.sync(() => frames.length), (n) => n > 0)
        expect(frames[0]).toMatchObject({ _tag: "Snapshot", sessions: [{ sessionId: first, title: "First", status: "idle", archived: false }] })

        yield* host.renameSession(first, "Renamed", "web")
        yield* eventually(Effect.sync(() => updatesOf(frames, first)), (updates) => updates.some((line) => line.title === "Renamed"))
        const second = (yield* host.createSession({ cwd: "/elsewhere", client: "web" })).sessionId
        yield* eventually(Effect.sync(() => updatesOf(frames, second)), (updates) => updates.length > 0)
        expect(updatesOf(frames, second)[0]).toMatchObject({ cwd: "/elsewhere", status: "idle", lastSequence: 1 })
        yield* host.archiveSession(second, true, "web")
        yield* eventually(Effect.sync(() => updatesOf(frames, second)), (updates) => updates.at(-1)?.archived === true)
        yield* host.prompt({ sessionId: second, content: "hello there" })
        yield* eventually(Effect.sync(() => updatesOf(frames, second)), (updates) => updates.some((line) => line.status === "running"))
        yield* eventually(Effect.sync(() => updatesOf(frames, second)), (updates) => updates.at(-1)?.status === "idle")
        expect(updatesOf(frames, second).at(-1)).toMatchObject({ title: "hello there", archived: true, running: false })
        yield* eventually(Effect.sync(() => frames.filter((frame) => frame._tag === "KeepAlive").length), (n) => n >= 2)
        yield* Fiber.interrupt(watching)
      }).pipe(Effect.provide(hostOn(store.fresh(), { responses: [{ chunks: [{ text: "hi" }], delayMs: 100 }] }))))

    it.live("changes within the coalescing interval make one update per session", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
        const frames: Array<SessionListFrame> = []
        const watching = yield* host.watchSessions.pipe(Stream.runForEach((frame) => Effect.sync(() => frames.push(frame))), Effect.fork)
        yield* eventually(Effect.sync(() => frames.length), (n) => n > 0)
        for (const n of [1, 2, 3, 4, 5, 6]) yield* host.renameSession(sessionId, `title ${n}`, "web")
        yield* eventually(Effect.sync(() => updatesOf(frames, sessionId)), (updates) => updates.at(-1)?.title === "title 6")
        // Six renames well within a second: one update, or two when a flush fell in the middle.
        expect(updatesOf(frames, sessionId).length).toBeLessThanOrEqual(2)
        yield* Fiber.interrupt(watching)
      }).pipe(Effect.provide(hostOn(store.fresh(), undefined, { coalesce: "1 second", poll: "10 seconds", keepAlive: "1 minute" }))))
  })
}
