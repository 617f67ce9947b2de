import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Layer, Ref, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { checkpointsLayer } from "../../src/app/checkpoints.js"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { ModelRequest } from "../../src/domain/model.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { makeFakeCheckpoints } from "../support/fake-checkpoints.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"
import { afterTurnOne, afterTurnTwo, changingScript, filesIn, startWorkspace } from "../support/rewind-scenario.js"
import { storeCases } from "../support/store-cases.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

/** Every text a request carries, user's and model's, in order. */
const textsOf = (request: ModelRequest | undefined) =>
  (request?.messages ?? []).flatMap((message) => message.content.flatMap((part) => (part._tag === "text" ? [part.text.trim()] : [])))

const turn = (sessionId: string, content: string) =>
  Effect.flatMap(SessionEngine, (engine) => Stream.runCollect(engine.runTurn({ sessionId, content, permissionMode: "bypass" }))).pipe(
    Effect.map(Chunk.toArray)
  )

/** A session whose two turns changed the workspace (see `changingScript`). */
const twoTurns = (workspace: string) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
    yield* turn(header.sessionId, "one")
    yield* turn(header.sessionId, "two")
    const log = yield* replayAll(header.sessionId)
    const turnStarts = eventsOf(log, "turn.started").map((e) => e.sequence)
    return { sessionId: header.sessionId, log, turnStarts }
  })

const lastRequest = Effect.map(Effect.flatMap(RecordedRequests, Ref.get), (sent) => sent.filter((r) => r.purpose === "turn").at(-1))

const sameAsSent = (log: ReadonlyArray<AgentEvent>) =>
  Effect.gen(function* () {
    const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
    const rebuilt = Either.getOrThrow(rebuildRequests(log))
    expect(rebuilt.map((r) => r.messages)).toEqual(sent.filter((r) => r.purpose === "turn").map((r) => r.messages))
  })

/** The fake in memory, and the real store (private git repositories under a data directory). */
const checkpointStores = [
  { name: "fake", layer: (fake: ReturnType<typeof makeFakeCheckpoints>) => fake.layer },
  { name: "git", layer: () => checkpointsLayer(temp.dir("rewind-data-")) }
] as const

const combinations = storeCases
  .filter((s) => s.name === "memory" || s.name === "sqlite")
  .flatMap((store) => checkpointStores.map((checkpoints) => ({ store, checkpoints })))

for (const { store, checkpoints } of combinations) {
  describe(`checkpoints (${checkpoints.name}), rewind and redo on the ${store.name} store`, () => {
    const setup = (options: { readonly checkpoints?: boolean } = {}) => {
      const fake = makeFakeCheckpoints()
      const recording = recordingScripted({ ...changingScript, summaries: ["the summary"] })
      const layer = engineLayer(store.fresh(), undefined, {
        model: recording,
        tools: localTools(sandboxOff),
        ...(options.checkpoints === false ? {} : { checkpoints: checkpoints.layer(fake) })
      }).pipe(Layer.provideMerge(recording))
      return { fake, layer, workspace: startWorkspace(temp.dir("rewind-ws-")) }
    }
    /** What only the fake can show: how many snapshots were taken, and snapshots that fail. */
    const faking = checkpoints.name === "fake"

    it.live("checkpoints are recorded around the steps that may change the workspace, never for reads", () => {
      const { fake, layer, workspace } = setup()
      return Effect.gen(function* () {
        const { log } = yield* twoTurns(workspace)
        const checkpoints = eventsOf(log, "checkpoint.recorded")
        expect(checkpoints.map((c) => [c.payload.trigger, c.payload.changed])).toEqual([
          ["before_tools", []],
          ["after_tools", ["a.txt"]],
          ["after_tools", ["b.txt", "made-by-shell.txt"]]
        ])
        // The read step took no snapshot; turn 2's baseline was the last checkpoint, so it was taken and not recorded.
        if (faking) expect(fake.state.snapshots).toBe(4)
        expect(checkpoints[1]?.payload.parent).toBe(checkpoints[0]?.payload.treeId)
        const write = log.find((e) => e.type === "tool.started" && e.payload.toolCallId === "call_write_a")
        expect(checkpoints[0]?.sequence).toBeLessThan(write?.sequence ?? 0)
        expect(checkpoints.every((c) => c.turnId !== undefined)).toBe(true)
      }).pipe(Effect.provide(layer))
    })

    it.live("rewind before turn 2 restores its files and conversation; the next request carries only the history up to there", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { sessionId, log, turnStarts } = yield* twoTurns(workspace)
        expect(filesIn(workspace)).toEqual(afterTurnTwo)
        const afterOne = eventsOf(log, "checkpoint.recorded")[1]?.sequence
        const result = yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, by: "test" })
        expect(result).toEqual({ restoredPaths: ["b.txt", "made-by-shell.txt"], drift: [], conversationTo: (turnStarts[1] ?? 0) - 1, checkpointSequence: afterOne })
        expect(filesIn(workspace)).toEqual(afterTurnOne)
        const recorded = (yield* replayAll(sessionId)).slice(log.length)
        expect(recorded.map((e) => [e.type, e.payload])).toEqual([
          [
            "checkpoint.restored",
            { treeId: eventsOf(log, "checkpoint.recorded")[1]?.payload.treeId, checkpointSequence: afterOne, paths: ["b.txt", "made-by-shell.txt"], drift: [], forced: false, by: "test", redo: false }
          ],
          ["conversation.rewound", { toSequence: (turnStarts[1] ?? 0) - 1, by: "test", redo: false }]
        ])
        // Both are one action: committed together, with one timestamp.
        expect(recorded[0]?.timestamp).toBe(recorded[1]?.timestamp)

        yield* turn(sessionId, "three")
        expect(textsOf(yield* lastRequest)).toEqual(["one", "done one", "three"])
        yield* sameAsSent(yield* replayAll(sessionId))
      }).pipe(Effect.provide(layer))
    })

    it.live("files only, or the conversation only", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { sessionId, log } = yield* twoTurns(workspace)
        const files = yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 1 }, what: "files", by: "test" })
        expect(files.conversationTo).toBeUndefined()
        expect(filesIn(workspace)).toEqual({ "a.txt": "original\n" })
        const conversation = yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, what: "conversation", by: "test" })
        expect(conversation).toEqual({ restoredPaths: [], drift: [], conversationTo: eventsOf(log, "turn.completed")[0]?.sequence })
        expect(filesIn(workspace)).toEqual({ "a.txt": "original\n" })
        expect((yield* replayAll(sessionId)).slice(log.length).map((e) => e.type)).toEqual(["checkpoint.restored", "conversation.rewound"])
        yield* turn(sessionId, "three")
        expect(textsOf(yield* lastRequest)).toEqual(["one", "done one", "three"])
      }).pipe(Effect.provide(layer))
    })

    it.live("redo undoes the last rewind: files and conversation back; then there is nothing to redo", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { sessionId, log } = yield* twoTurns(workspace)
        yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, by: "test" })
        const redone = yield* engine.redo(sessionId, { by: "test" })
        expect(redone).toEqual({
          restoredPaths: ["b.txt", "made-by-shell.txt"],
          drift: [],
          conversationTo: log.length,
          checkpointSequence: eventsOf(log, "checkpoint.recorded")[2]?.sequence
        })
        expect(filesIn(workspace)).toEqual(afterTurnTwo)
        const recorded = (yield* replayAll(sessionId)).slice(log.length + 2)
        expect(recorded.map((e) => [e.type, "redo" in e.payload && e.payload.redo])).toEqual([
          ["checkpoint.restored", true],
          ["conversation.rewound", true]
        ])
        const nothing = yield* Effect.flip(engine.redo(sessionId, { by: "test" }))
        expect(nothing).toMatchObject({ _tag: "RewindUnavailable", message: expect.stringContaining("nothing to redo") })
        yield* turn(sessionId, "three")
        expect(textsOf(yield* lastRequest)).toEqual(["one", "done one", "two", "done two", "three"])
        yield* sameAsSent(yield* replayAll(sessionId))
      }).pipe(Effect.provide(layer))
    })

    it.live("drift: refused without force and nothing changes; with force the drifted file is overwritten and named", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { sessionId, log } = yield* twoTurns(workspace)
        writeFileSync(join(workspace, "a.txt"), "edited by hand\n")
        const refused = yield* Effect.flip(engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, by: "test" }))
        expect(refused).toMatchObject({ _tag: "RewindDrift", paths: ["a.txt"] })
        expect(yield* replayAll(sessionId)).toHaveLength(log.length)
        expect(filesIn(workspace)).toEqual({ ...afterTurnTwo, "a.txt": "edited by hand\n" })

        const forced = yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, force: true, by: "test" })
        expect(forced.drift).toEqual(["a.txt"])
        expect(filesIn(workspace)).toEqual(afterTurnOne)
        const restored = eventsOf(yield* replayAll(sessionId), "checkpoint.restored")[0]
        expect(restored?.payload).toMatchObject({ paths: ["a.txt", "b.txt", "made-by-shell.txt"], drift: ["a.txt"], forced: true })
        // The session's files are what the restore made them: no drift any more.
        expect(yield* engine.redo(sessionId, { by: "test" })).toMatchObject({ drift: [] })
      }).pipe(Effect.provide(layer))
    })

    it.live("a single file is restored alone; the next rewind sees no drift in it", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { sessionId, log } = yield* twoTurns(workspace)
        const one = yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 1 }, path: "./a.txt", by: "test" })
        expect(one).toEqual({ restoredPaths: ["a.txt"], drift: [], checkpointSequence: eventsOf(log, "checkpoint.recorded")[0]?.sequence })
        expect(filesIn(workspace)).toEqual({ ...afterTurnTwo, "a.txt": "original\n" })
        expect(yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, what: "files", by: "test" })).toMatchObject({
          restoredPaths: ["a.txt", "b.txt", "made-by-shell.txt"],
          drift: []
        })
        expect(filesIn(workspace)).toEqual(afterTurnOne)
        const outside = yield* Effect.flip(engine.rewind(sessionId, { to: { _tag: "Turn", turn: 1 }, path: "../a.txt", by: "test" }))
        expect(outside).toMatchObject({ _tag: "RewindUnavailable", message: expect.stringContaining("not a path inside the workspace") })
        const both = yield* Effect.flip(engine.rewind(sessionId, { to: { _tag: "Turn", turn: 1 }, path: "a.txt", what: "both", by: "test" }))
        expect(both).toMatchObject({ _tag: "RewindUnavailable" })
      }).pipe(Effect.provide(layer))
    })

    it.live("rewind to a sequence: the files as the log had them there, the conversation through it", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { sessionId, log } = yield* twoTurns(workspace)
        const firstEnd = eventsOf(log, "turn.completed")[0]?.sequence ?? 0
        const result = yield* engine.rewind(sessionId, { to: { _tag: "Sequence", sequence: firstEnd }, by: "test" })
        expect(result.conversationTo).toBe(firstEnd)
        expect(filesIn(workspace)).toEqual(afterTurnOne)
        const unknown = yield* Effect.flip(engine.rewind(sessionId, { to: { _tag: "Sequence", sequence: 10_000 }, by: "test" }))
        expect(unknown).toMatchObject({ _tag: "RewindUnavailable", message: expect.stringContaining("no event 10000") })
        const noTurn = yield* Effect.flip(engine.rewind(sessionId, { to: { _tag: "Turn", turn: 9 }, by: "test" }))
        expect(noTurn).toMatchObject({ _tag: "RewindUnavailable", message: "no turn 9: the session has 2" })
      }).pipe(Effect.provide(layer))
    })

    it.live("compaction after a rewind summarizes only the conversation that holds", () => {
      const { layer, workspace } = setup()
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { sessionId } = yield* twoTurns(workspace)
        yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, what: "conversation", by: "test" })
        yield* turn(sessionId, "three")
        const compacted = yield* engine.compact(sessionId)
        const log = yield* replayAll(sessionId)
        const turnIds = eventsOf(log, "turn.started").map((e) => e.turnId)
        expect(compacted._tag === "Some" && compacted.value.type === "context.compacted" && compacted.value.payload.turns).toEqual([turnIds[0], turnIds[2]])
        const summaryRequest = (yield* Effect.flatMap(RecordedRequests, Ref.get)).find((r) => r.purpose === "compaction")
        const transcript = textsOf(summaryRequest).join("\n")
        expect(transcript).toContain("User: one")
        expect(transcript).toContain("User: three")
        expect(transcript).not.toContain("User: two")
        yield* turn(sessionId, "four")
        expect(textsOf(yield* lastRequest)).toEqual([expect.stringContaining("the summary"), "four"])
        yield* sameAsSent(yield* replayAll(sessionId))
      }).pipe(Effect.provide(layer))
    })

    it.live.runIf(faking)("a failing snapshot records nothing and the turn goes on; without checkpoints only the conversation goes back", () => {
      const { fake, layer, workspace } = setup()
      fake.state.failing = true
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { sessionId, log } = yield* twoTurns(workspace)
        expect(eventsOf(log, "checkpoint.recorded")).toEqual([])
        expect(eventsOf(log, "turn.completed").map((e) => e.payload.stopReason)).toEqual(["final", "final"])
        expect(filesIn(workspace)).toEqual(afterTurnTwo)
        const files = yield* Effect.flip(engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, what: "files", by: "test" }))
        expect(files).toMatchObject({ _tag: "RewindUnavailable", message: expect.stringContaining("no checkpoint before that point") })
        const both = yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, by: "test" })
        expect(both).toEqual({ restoredPaths: [], drift: [], conversationTo: eventsOf(log, "turn.completed")[0]?.sequence })
        expect(filesIn(workspace)).toEqual(afterTurnTwo)
      }).pipe(Effect.provide(layer))
    })

    it.live("an engine without a checkpoint store records none and still rewinds the conversation", () => {
      const { layer, workspace } = setup({ checkpoints: false })
      return Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { sessionId, log } = yield* twoTurns(workspace)
        expect(eventsOf(log, "checkpoint.recorded")).toEqual([])
        expect(yield* engine.rewind(sessionId, { to: { _tag: "Turn", turn: 2 }, by: "test" })).toMatchObject({ restoredPaths: [] })
      }).pipe(Effect.provide(layer))
    })

    it.effect("a rewind while a turn runs is refused with TurnInProgress", () =>
      Effect.gen(function* () {
        const engine = yield* SessionEngine
        const { header } = yield* engine.createSession({ cwd: "/work", client: "test" })
        yield* engine.prompt({ sessionId: header.sessionId, content: "slow" })
        const refused = yield* Effect.flip(engine.rewind(header.sessionId, { to: { _tag: "Turn", turn: 1 }, by: "test" }))
        expect(refused._tag).toBe("TurnInProgress")
        expect((yield* Effect.flip(engine.redo(header.sessionId, { by: "test" })))._tag).toBe("TurnInProgress")
        yield* engine.cancelTurn(header.sessionId)
      }).pipe(Effect.provide(engineLayer(store.fresh(), { responses: [{ chunks: [{ text: "slow" }], delayMs: 60_000 }] }))))
  })
}
