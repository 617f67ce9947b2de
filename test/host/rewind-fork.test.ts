import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Stream } from "effect"
import { checkpointsLayer } from "../../src/app/checkpoints.js"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { planImport } from "../../src/domain/session-log.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { makeFakeCheckpoints } from "../support/fake-checkpoints.js"
import { hostTestLayer } from "../support/host-harness.js"
import { afterTurnOne, changingScript, filesIn, startWorkspace } from "../support/rewind-scenario.js"
import { storeCases } from "../support/store-cases.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

/** Prompts and waits for the turn it started to end; the turn's events. */
const promptAndWait = (sessionId: string, content: string) =>
  Effect.gen(function* () {
    const host = yield* AgentHost
    const receipt = yield* host.prompt({ sessionId, content, permissionMode: "bypass", client: "test" })
    if (receipt._tag !== "Started") return yield* Effect.dieMessage("the prompt was queued")
    const frames = yield* host.subscribe(sessionId, 0).pipe(
      Stream.takeUntil((f) => f._tag === "Event" && f.event.type === "turn.completed" && f.event.turnId === receipt.turnId),
      Stream.runCollect
    )
    return Chunk.toArray(frames).flatMap((f) => (f._tag === "Event" && f.event.turnId === receipt.turnId ? [f.event] : []))
  })

const texts = (log: ReadonlyArray<AgentEvent>) => {
  const requests = Either.getOrThrow(rebuildRequests(log))
  return (requests.at(-1)?.messages ?? []).flatMap((m) => m.content.flatMap((p) => (p._tag === "text" ? [p.text.trim()] : [])))
}

/** The fake in memory, and the real store (private git repositories under a data directory). */
const combinations = storeCases
  .filter((s) => s.name === "memory" || s.name === "sqlite")
  .flatMap((store) => [
    { store, name: "fake", checkpoints: () => makeFakeCheckpoints().layer },
    { store, name: "git", checkpoints: () => checkpointsLayer(temp.dir("host-data-")) }
  ])

for (const { store, name, checkpoints } of combinations) {
  describe(`rewind, redo and fork through the host on the ${store.name} store (${name} checkpoints)`, () => {
    const setup = () => ({
      layer: hostTestLayer(store.fresh(), changingScript, { tools: localTools(sandboxOff), checkpoints: checkpoints() }),
      workspace: startWorkspace(temp.dir("host-rewind-"))
    })

    const twoTurns = (workspace: string) =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const view = yield* host.createSession({ cwd: workspace, client: "test", title: "the source" })
        yield* promptAndWait(view.sessionId, "one")
        yield* promptAndWait(view.sessionId, "two")
        return view.sessionId
      })

    it.live("rewind and redo are recorded and reach subscribers", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const host = yield* AgentHost
        const sessionId = yield* twoTurns(workspace)
        const before = (yield* host.getSession(sessionId)).lastSequence
        const rewound = yield* host.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, by: "web" })
        expect(rewound.restoredPaths).toEqual(["b.txt", "made-by-shell.txt"])
        expect(filesIn(workspace)).toEqual(afterTurnOne)
        yield* host.redo(sessionId, { by: "web" })
        const frames = yield* host.subscribe(sessionId, before).pipe(Stream.take(5), Stream.runCollect)
        const events = Chunk.toArray(frames).flatMap((f) => (f._tag === "Event" ? [f.event] : []))
        expect(events.map((e) => [e.type, "by" in e.payload ? e.payload.by : undefined])).toEqual([
          ["checkpoint.restored", "web"],
          ["conversation.rewound", "web"],
          ["checkpoint.restored", "web"],
          ["conversation.rewound", "web"]
        ])
      }).pipe(Effect.provide(layer))
    })

    it.live("a fork inside a turn copies through the last completed turn, replays on its own, imports into an empty store and takes a prompt", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const host = yield* AgentHost
        const sourceId = yield* twoTurns(workspace)
        const source = yield* replayAll(sourceId)
        const secondStart = eventsOf(source, "turn.started")[1]?.sequence ?? 0
        const firstEnd = eventsOf(source, "turn.completed")[0]?.sequence ?? 0

        const view = yield* host.forkSession(sourceId, { atSequence: secondStart + 2, by: "test" })
        expect(view.title).toBe("fork of the source")
        expect(view.cwd).toBe(workspace)
        const fork = yield* replayAll(view.sessionId)
        expect(fork[1]).toMatchObject({ type: "session.forked", sequence: 2, payload: { sourceSessionId: sourceId, atSequence: secondStart + 2, copiedThrough: firstEnd } })
        // The copies: the same events, one sequence later, under the fork's id with ids of their own.
        const copies = fork.slice(2, firstEnd + 1)
        expect(copies.map((e) => [e.type, e.turnId, e.payload, e.timestamp, e.sequence])).toEqual(
          source.slice(1, firstEnd).map((e) => [e.type, e.turnId, e.payload, e.timestamp, e.sequence + 1])
        )
        expect(copies.every((e) => e.sessionId === view.sessionId && !source.some((s) => s.id === e.id))).toBe(true)
        expect(fork.at(-1)).toMatchObject({ type: "session.renamed", payload: { title: "fork of the source", by: "test" } })

        const plan = planImport(fork, { unverified: false })
        expect(plan._tag === "Write" && plan.unverified).toBe(undefined)
        const imported = yield* Effect.provide(
          Effect.flatMap(AgentHost, (empty) => empty.importSession(fork)),
          hostTestLayer(MemoryStore.layer, { responses: [] })
        )
        expect(imported).toMatchObject({ sessionId: view.sessionId, events: fork.length })

        yield* promptAndWait(view.sessionId, "three")
        expect(texts(yield* replayAll(view.sessionId))).toEqual(["one", "done one", "three"])
        // The source goes on as it was.
        expect(yield* replayAll(sourceId)).toEqual(source)
      }).pipe(Effect.provide(layer))
    })

    it.live("a fork at a turn boundary copies through it; by default it copies everything", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const host = yield* AgentHost
        const sourceId = yield* twoTurns(workspace)
        const source = yield* replayAll(sourceId)
        const firstEnd = eventsOf(source, "turn.completed")[0]?.sequence ?? 0
        const atBoundary = yield* replayAll((yield* host.forkSession(sourceId, { atSequence: firstEnd, by: "test" })).sessionId)
        expect(atBoundary[1]?.payload).toEqual({ sourceSessionId: sourceId, atSequence: firstEnd, copiedThrough: firstEnd })
        const whole = yield* host.forkSession(sourceId, { by: "test" })
        // Its header, session.forked, the copies, a reset of the mode the copies set (history is not authority), its title.
        expect(whole.lastSequence).toBe(source.length + 3)
        expect(whole.permissionMode).toBe("default")
        const unknown = yield* Effect.flip(host.forkSession(sourceId, { atSequence: 10_000, by: "test" }))
        expect(unknown).toMatchObject({ _tag: "RewindUnavailable" })
        expect((yield* Effect.flip(host.forkSession("ses_nope", { by: "test" })))._tag).toBe("SessionNotFound")
        // The fork's checkpoints are the source's: it rewinds its files like the source would.
        const rewound = yield* host.rewind(whole.sessionId, { to: { _tag: "Turn", turn: 2 }, by: "test" })
        expect(rewound.checkpointSequence).toBe((eventsOf(source, "checkpoint.recorded")[1]?.sequence ?? 0) + 1)
        expect(filesIn(workspace)).toEqual(afterTurnOne)
      }).pipe(Effect.provide(layer))
    })
  })
}
