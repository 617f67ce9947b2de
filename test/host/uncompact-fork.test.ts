import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Stream } from "effect"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { hostTestLayer } from "../support/host-harness.js"

const promptAndWait = (sessionId: string, content: string) =>
  Effect.gen(function* () {
    const host = yield* AgentHost
    const receipt = yield* host.prompt({ sessionId, content, client: "test" })
    if (receipt._tag !== "Started") return yield* Effect.dieMessage("the prompt was queued")
    yield* host.subscribe(sessionId, 0).pipe(
      Stream.takeUntil((f) => f._tag === "Event" && f.event.type === "turn.completed" && f.event.turnId === receipt.turnId),
      Stream.runCollect
    )
  })

const lastRequestTexts = (log: Parameters<typeof rebuildRequests>[0]) =>
  (Either.getOrThrow(rebuildRequests(log)).at(-1)?.messages ?? []).flatMap((m) => m.content.flatMap((p) => (p._tag === "text" ? [p.text.trim()] : [])))

describe("un-compact by fork", () => {
  it.effect("a fork from just before a compaction continues with the verbatim history; the source keeps its summary", () =>
    Effect.gen(function* () {
      const host = yield* AgentHost
      const view = yield* host.createSession({ cwd: "/tmp", client: "test" })
      yield* promptAndWait(view.sessionId, "one")
      yield* promptAndWait(view.sessionId, "two")
      const compacted = yield* host.compact(view.sessionId)
      const at = compacted._tag === "Some" ? compacted.value.sequence - 1 : 0
      yield* promptAndWait(view.sessionId, "three")
      expect(lastRequestTexts(yield* replayAll(view.sessionId))[0]).toContain("Summary of the earlier conversation")

      const fork = yield* host.forkSession(view.sessionId, { atSequence: at, by: "test" })
      const forkLog = yield* replayAll(fork.sessionId)
      expect(eventsOf(forkLog, "session.forked")).toHaveLength(1)
      expect(eventsOf(forkLog, "context.compacted")).toHaveLength(0)
      yield* promptAndWait(fork.sessionId, "three again")
      expect(lastRequestTexts(yield* replayAll(fork.sessionId))).toEqual(["one", "a", "two", "b", "three again"])
    }).pipe(Effect.provide(hostTestLayer(MemoryStore.layer, { responses: ["a", "b", "c"], summaries: ["## Goal\nCount.\n## Progress\nTwo turns."] }))))
})
