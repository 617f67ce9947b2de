import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Ref, Stream } from "effect"
import { join } from "node:path"
import { approveMemory, deleteMemory, rejectMemory } from "../../src/core/memory-review.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import * as ContextSources from "../../src/layers/context/builder.js"
import * as MemoryStoreLayer from "../../src/layers/event-store/memory.js"
import * as MemoryFile from "../../src/layers/memory/file-store.js"
import { rememberTool } from "../../src/layers/memory/remember-tool.js"
import * as SkillFolders from "../../src/layers/skills/folders.js"
import { MemoryStore } from "../../src/services/MemoryStore.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"
import { eventsOf } from "../support/events.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)
const temp = temps.dir

const remember = (text: string, scope: "project" | "user") => ({ chunks: [{ toolCall: { name: "remember", input: { text, scope } } }] })

const setup = (memoryFile: string, configDir: string) => {
  const recording = recordingScripted({
    responses: [remember("Use pnpm, not npm.", "project"), "noted", remember("The user hates tabs.", "user"), "noted", "plain", "plain", "plain"]
  })
  const context = ContextSources.layer({ configDir }).pipe(
    Layer.provide(Layer.mergeAll(SkillFolders.layer({ configDir }), MemoryFile.layer(memoryFile)))
  )
  return engineLayer(MemoryStoreLayer.layer, undefined, { model: recording, context, memoryFile, tools: [rememberTool] }).pipe(
    Layer.provideMerge(recording)
  )
}

const turn = (sessionId: string, content: string) =>
  Effect.flatMap(SessionEngine, (engine) => Stream.runCollect(engine.runTurn({ sessionId, content }))).pipe(Effect.map(Chunk.toArray))

const lastSystem = Effect.map(Effect.flatMap(RecordedRequests, Ref.get), (requests) => requests.at(-1)?.system ?? "")

describe("memory: evidence, candidate, approval, durable memory", () => {
  it.live("a candidate has no effect until approved; a rejected one never does; approvals persist and are on the record", () => {
    const memoryFile = join(temp("mem-"), "memory.json")
    const configDir = temp("mem-config-")
    const workspace = temp("mem-ws-")
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const store = yield* MemoryStore
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      const sessionId = header.sessionId

      const first = yield* turn(sessionId, "we use pnpm here, remember that")
      const proposed = eventsOf(first, "memory.candidate_proposed")[0]?.payload
      expect(proposed).toMatchObject({ text: "Use pnpm, not npm.", scope: "project", evidence: { sessionId, fromSequence: 2 } })
      // Allowed without asking because it only proposes, not because "reads are allowed".
      expect(eventsOf(first, "permission.resolved")[0]?.payload).toMatchObject({
        decision: "allow",
        by: "default",
        reason: "remember only proposes a memory: nothing changes until a person approves it"
      })
      expect((yield* store.pending).map((c) => c.id)).toEqual([proposed?.candidateId])
      expect(yield* store.forWorkspace(workspace)).toEqual([])

      const second = yield* turn(sessionId, "and I dislike tabs")
      expect(yield* lastSystem).not.toContain("pnpm")
      const tabs = eventsOf(second, "memory.candidate_proposed")[0]?.payload.candidateId ?? ""

      const memory = yield* approveMemory(proposed?.candidateId ?? "", "cli")
      expect(memory).toMatchObject({ text: "Use pnpm, not npm.", scope: "project", workspaceRoot: workspace, approvedBy: "cli" })
      yield* rejectMemory(tabs, "web", "not a lasting preference")
      const again = yield* rejectMemory(tabs, "web").pipe(Effect.flip)
      expect(again.message).toContain("already rejected")

      yield* turn(sessionId, "hello again")
      const system = yield* lastSystem
      expect(system).toContain("Use pnpm, not npm.")
      expect(system).not.toContain("tabs")

      // The audit trail is in the session's log, in order.
      const log = yield* replayAll(sessionId)
      expect(log.filter((e) => e.type.startsWith("memory.")).map((e) => e.type)).toEqual([
        "memory.candidate_proposed",
        "memory.candidate_proposed",
        "memory.approved",
        "memory.rejected"
      ])
      const approved = eventsOf(log, "memory.approved")[0]
      expect(approved?.payload).toMatchObject({ memoryId: memory.id, by: "cli" })
      expect(eventsOf(log, "context.source").find((e) => e.payload.kind === "memory")?.payload.text).toContain("Use pnpm")

      // Another process (a new store on the same file) sees the approved memory.
      const reopened = yield* MemoryFile.make(memoryFile)
      expect((yield* reopened.forWorkspace(workspace)).map((m) => m.id)).toEqual([memory.id])
      expect(yield* reopened.forWorkspace(temp("elsewhere-"))).toEqual([])

      yield* deleteMemory(memory.id, "cli")
      expect(yield* store.all).toEqual([])
      yield* turn(sessionId, "and now?")
      expect(yield* lastSystem).not.toContain("pnpm")
      expect(eventsOf(yield* replayAll(sessionId), "memory.deleted")[0]?.payload).toEqual({ memoryId: memory.id, by: "cli" })
      const missing = yield* deleteMemory(memory.id, "cli").pipe(Effect.flip)
      expect(missing._tag).toBe("MemoryNotFound")
    }).pipe(Effect.provide(setup(memoryFile, configDir)))
  })

  it.live("approving what is remembered already records the memory that holds it, and the store keeps one", () => {
    const memoryFile = join(temp("mem-twice-"), "memory.json")
    const workspace = temp("mem-twice-ws-")
    const recording = recordingScripted({
      responses: [remember("Use pnpm, not npm.", "project"), "noted", remember("use pnpm,  not npm", "project"), "noted"]
    })
    const context = ContextSources.layer({ configDir: temp("mem-twice-config-") }).pipe(
      Layer.provide(Layer.mergeAll(SkillFolders.layer({ configDir: temp("mem-twice-skills-") }), MemoryFile.layer(memoryFile)))
    )
    const layer = engineLayer(MemoryStoreLayer.layer, undefined, { model: recording, context, memoryFile, tools: [rememberTool] }).pipe(
      Layer.provideMerge(recording)
    )
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      const first = eventsOf(yield* turn(header.sessionId, "remember pnpm"), "memory.candidate_proposed")[0]?.payload.candidateId ?? ""
      const second = eventsOf(yield* turn(header.sessionId, "remember it again"), "memory.candidate_proposed")[0]?.payload.candidateId ?? ""
      const kept = yield* approveMemory(first, "cli")
      const again = yield* approveMemory(second, "cli")
      expect(again.id).toBe(kept.id)
      expect((yield* Effect.flatMap(MemoryStore, (store) => store.all)).map((m) => m.id)).toEqual([kept.id])
      const approvals = eventsOf(yield* replayAll(header.sessionId), "memory.approved").map((e) => e.payload.memoryId)
      expect(approvals).toEqual([kept.id, kept.id])
    }).pipe(Effect.provide(layer))
  })

  it.effect("a malformed memory file is a clear error naming the file", () => {
    const memoryFile = join(temp("mem-bad-"), "memory.json")
    return Effect.gen(function* () {
      yield* Effect.promise(() => import("node:fs/promises").then((fs) => fs.writeFile(memoryFile, "{\"candidates\": 3}")))
      const store = yield* MemoryFile.make(memoryFile)
      const error = yield* store.pending.pipe(Effect.flip)
      expect(error.message).toContain(memoryFile)
      expect(error.message).toContain("malformed")
    })
  })
})

describe("memory: a full review queue", () => {
  it.live("with the most candidates already waiting, a proposal is refused in its result, none is recorded, and the queue does not grow", () => {
    const memoryFile = join(temp("mem-full-"), "memory.json")
    const configDir = temp("mem-full-config-")
    const workspace = temp("mem-full-ws-")
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const store = yield* MemoryStore
      for (let i = 0; i < MemoryFile.MAX_PENDING_CANDIDATES; i++) {
        yield* store.propose({
          id: `cand_${i}`,
          sessionId: "ses_other",
          workspaceRoot: workspace,
          scope: "project",
          text: `fact ${i}`,
          evidence: { sessionId: "ses_other", fromSequence: 1, toSequence: 2 },
          proposedAt: "2026-01-01T00:00:00.000Z"
        })
      }
      const { header } = yield* engine.createSession({ cwd: workspace, client: "test" })
      const events = yield* turn(header.sessionId, "remember this")
      expect(eventsOf(events, "memory.candidate_proposed")).toEqual([])
      const completed = eventsOf(events, "tool.completed")[0]?.payload
      expect(completed).toMatchObject({ isError: true })
      expect(completed?.output).toContain(`Not proposed: ${MemoryFile.MAX_PENDING_CANDIDATES} memory candidates already wait`)
      expect(yield* store.pending).toHaveLength(MemoryFile.MAX_PENDING_CANDIDATES)
    }).pipe(Effect.provide(setup(memoryFile, configDir)))
  })
})
