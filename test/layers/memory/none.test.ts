import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { noMemoryStore } from "../../../src/layers/memory/none.js"
import { MemoryStore } from "../../../src/services/MemoryStore.js"

const evidence = { sessionId: "s1", fromSequence: 1, toSequence: 2 }

describe("noMemoryStore: a memory store that keeps nothing", () => {
  it.effect("a proposed candidate is not kept: nothing pending, nothing in any context", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      yield* store.propose({ id: "mem_1", sessionId: "s1", workspaceRoot: "/work", scope: "project", text: "Use pnpm.", evidence, proposedAt: "2026-01-01T00:00:00.000Z" })
      expect(yield* store.pending).toEqual([])
      expect(yield* store.forWorkspace("/work")).toEqual([])
      expect(yield* store.all).toEqual([])
    }).pipe(Effect.provide(noMemoryStore)))

  it.effect("reading, approving, rejecting or removing one fails with MemoryNotFound", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      const failures = yield* Effect.all([
        Effect.flip(store.candidate("mem_1")),
        Effect.flip(store.approve("mem_1", { id: "m1", approvedAt: "2026-01-01T00:00:00.000Z", approvedBy: "me" })),
        Effect.flip(store.reject("mem_1")),
        Effect.flip(store.remove("m1"))
      ])
      expect(failures.map((e) => e._tag)).toEqual(["MemoryNotFound", "MemoryNotFound", "MemoryNotFound", "MemoryNotFound"])
    }).pipe(Effect.provide(noMemoryStore)))
})
