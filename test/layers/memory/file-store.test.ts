import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { join } from "node:path"
import * as MemoryFile from "../../../src/layers/memory/file-store.js"
import { normalizedText } from "../../../src/domain/same-memory.js"
import { type MemoryCandidate, MemoryStore } from "../../../src/services/MemoryStore.js"
import { makeTemp } from "../../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const storeLayer = () => MemoryFile.layer(join(temps.dir("memory-store-"), "memory.json"))

let next = 0
const candidate = (text: string, scope: MemoryCandidate["scope"], workspaceRoot = "/work/a"): Omit<MemoryCandidate, "status"> => ({
  id: `cand_${++next}`,
  sessionId: "ses_1",
  workspaceRoot,
  scope,
  text,
  evidence: { sessionId: "ses_1", fromSequence: 1, toSequence: 2 },
  proposedAt: "2026-01-01T00:00:00.000Z"
})

/** Proposes and approves; gives the memory the store answered with. */
const remember = (proposed: Omit<MemoryCandidate, "status">) =>
  Effect.gen(function* () {
    const store = yield* MemoryStore
    yield* store.propose(proposed)
    return yield* store.approve(proposed.id, { id: `mem_${proposed.id}`, approvedAt: "2026-01-02T00:00:00.000Z", approvedBy: "test" })
  })

describe("the memory file: the same memory is not stored twice", () => {
  it.effect("approving a candidate that says what a memory says already settles it and answers with that memory; no second entry", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      const first = yield* remember(candidate("Releases are cut on Fridays.", "project"))
      const again = candidate("  releases are cut on   fridays ", "project")
      const answered = yield* remember(again)
      expect(answered).toEqual(first)
      expect(yield* store.all).toEqual([first])
      expect((yield* store.candidate(again.id)).status).toBe("approved")
      expect(yield* store.pending).toEqual([])
    }).pipe(Effect.provide(storeLayer())))

  it.effect("the same text in another project, or for all projects, is another memory; a user memory is one for every project", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      yield* remember(candidate("Use pnpm.", "project", "/work/a"))
      yield* remember(candidate("Use pnpm.", "project", "/work/b"))
      const user = yield* remember(candidate("Use pnpm.", "user", "/work/a"))
      expect(yield* remember(candidate("use pnpm", "user", "/work/c"))).toEqual(user)
      expect((yield* store.all).map((m) => [m.scope, m.workspaceRoot])).toEqual([
        ["project", "/work/a"],
        ["project", "/work/b"],
        ["user", undefined]
      ])
    }).pipe(Effect.provide(storeLayer())))

  it("texts compare without case, runs of spaces or a closing full stop; words still count", () => {
    expect(normalizedText("  Use\tPNPM  for installs. ")).toBe(normalizedText("use pnpm for installs"))
    expect(normalizedText("Use pnpm")).not.toBe(normalizedText("Use npm"))
  })
})

describe("the memory file: candidates waiting for review are bounded", () => {
  it.effect("past the limit a proposal is refused, saying to review; a review makes room again", () =>
    Effect.gen(function* () {
      const store = yield* MemoryStore
      const proposed = Array.from({ length: MemoryFile.MAX_PENDING_CANDIDATES }, (_, i) => candidate(`fact ${i}`, "project"))
      for (const c of proposed) yield* store.propose(c)
      const refused = yield* Effect.flip(store.propose(candidate("one too many", "project")))
      expect(refused.message).toContain(`${MemoryFile.MAX_PENDING_CANDIDATES} memory candidates already wait for review`)
      expect(yield* store.pending).toHaveLength(MemoryFile.MAX_PENDING_CANDIDATES)
      yield* store.reject(proposed[0]?.id ?? "")
      yield* store.propose(candidate("now it fits", "project"))
      expect((yield* store.pending).map((c) => c.text)).toContain("now it fits")
    }).pipe(Effect.provide(storeLayer())))
})
