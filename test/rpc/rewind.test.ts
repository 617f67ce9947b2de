import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { localTools } from "../../src/layers/tools/local.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { makeFakeCheckpoints } from "../support/fake-checkpoints.js"
import { hostTestLayer } from "../support/host-harness.js"
import { afterTurnOne, afterTurnTwo, changingScript, filesIn, startWorkspace } from "../support/rewind-scenario.js"
import { makeWebRoot, postRaw, testClientLayer } from "../support/rpc-test-client.js"
import { makeTemp } from "../support/temp-dirs.js"

const token = "test-token-rewind-0123456789"
const web = makeWebRoot()
const temp = makeTemp()
afterAll(() => {
  web.remove()
  temp.cleanup()
})

const E2E = testClientLayer(token).pipe(
  Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1" })),
  Layer.provide(hostTestLayer(MemoryStore.layer, changingScript, { tools: localTools(sandboxOff), checkpoints: makeFakeCheckpoints().layer })),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

const promptAndWait = (sessionId: string, content: string) =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const receipt = yield* client.Prompt({ sessionId, content, permissionMode: "bypass", client: "web" })
    if (receipt._tag !== "Started") return yield* Effect.dieMessage("the prompt was queued")
    yield* client.Subscribe({ sessionId }).pipe(
      Stream.takeUntil((f) => f._tag === "Event" && f.event.type === "turn.completed" && f.event.turnId === receipt.turnId),
      Stream.runDrain
    )
  })

layer(E2E, { timeout: 30_000, excludeTestServices: true })("Rewind, Redo and ForkSession over HTTP", (it) => {
  it.effect("rewind, redo and fork; drift comes back typed and changes nothing; malformed payloads are refused", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const workspace = startWorkspace(temp.dir("rpc-rewind-"))
      const { sessionId } = yield* client.CreateSession({ cwd: workspace, client: "web" })
      yield* promptAndWait(sessionId, "one")
      yield* promptAndWait(sessionId, "two")

      const rewound = yield* client.Rewind({ sessionId, to: { _tag: "Turn", turn: 2 }, by: "web" })
      expect(rewound).toMatchObject({ restoredPaths: ["b.txt", "made-by-shell.txt"], drift: [] })
      expect(rewound.conversationTo).toBeGreaterThan(0)
      expect(filesIn(workspace)).toEqual(afterTurnOne)
      expect(yield* client.Redo({ sessionId })).toMatchObject({ restoredPaths: ["b.txt", "made-by-shell.txt"] })
      expect(filesIn(workspace)).toEqual(afterTurnTwo)
      const log = Chunk.toArray(yield* Stream.runCollect(client.ExportSession({ sessionId })))
      expect(log.slice(-4).map((e) => [e.type, "by" in e.payload ? e.payload.by : undefined])).toEqual([
        ["checkpoint.restored", "rpc:web"],
        ["conversation.rewound", "rpc:web"],
        ["checkpoint.restored", "rpc"],
        ["conversation.rewound", "rpc"]
      ])

      writeFileSync(join(workspace, "b.txt"), "changed by hand\n")
      const drift = yield* Effect.flip(client.Rewind({ sessionId, to: { _tag: "Turn", turn: 1 }, what: "files" }))
      expect(drift).toMatchObject({ _tag: "RewindDrift", paths: ["b.txt"] })
      expect(Chunk.size(yield* Stream.runCollect(client.ExportSession({ sessionId })))).toBe(log.length)
      const forced = yield* client.Rewind({ sessionId, to: { _tag: "Turn", turn: 1 }, what: "files", force: true })
      expect(forced.drift).toEqual(["b.txt"])
      expect(filesIn(workspace)).toEqual({ "a.txt": "original\n" })

      const fork = yield* client.ForkSession({ sessionId, atSequence: rewound.conversationTo ?? 1, by: "web" })
      expect(fork).toMatchObject({ cwd: workspace, client: "rpc:web", title: "fork of one" })
      const forked = Chunk.toArray(yield* Stream.runCollect(client.ExportSession({ sessionId: fork.sessionId })))
      expect(forked[1]).toMatchObject({ type: "session.forked", payload: { sourceSessionId: sessionId, atSequence: rewound.conversationTo } })

      const unavailable = yield* Effect.flip(client.Rewind({ sessionId, to: { _tag: "Turn", turn: 7 } }))
      expect(unavailable).toMatchObject({ _tag: "RewindUnavailable", message: "no turn 7: the session has 2" })
      expect((yield* Effect.flip(client.Redo({ sessionId: "ses_nope" })))._tag).toBe("SessionNotFound")
      expect((yield* Effect.flip(client.ForkSession({ sessionId, atSequence: 9_999 })))._tag).toBe("RewindUnavailable")

      // Past the typed client: a negative turn, an unknown target, a zero sequence.
      const negative = yield* postRaw(token, "Rewind", { sessionId, to: { _tag: "Turn", turn: -1 } })
      expect(negative).toContain("greater than or equal to 1")
      expect(yield* postRaw(token, "Rewind", { sessionId, to: { _tag: "Checkpoint", id: 1 } })).toContain("Checkpoint")
      expect(yield* postRaw(token, "ForkSession", { sessionId, atSequence: 0 })).toContain("greater than or equal to 1")
      expect(Chunk.size(yield* Stream.runCollect(client.ExportSession({ sessionId })))).toBe(log.length + 1)
    }))
})
