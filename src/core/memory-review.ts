import * as Effect from "effect/Effect"
import type { EngineError } from "../domain/errors.js"
import { sameMemory } from "../domain/same-memory.js"
import { Ids } from "../services/Ids.js"
import { type Memory, MemoryNotFound, MemoryStore, type MemoryStoreFailure } from "../services/MemoryStore.js"
import { SessionEngine } from "./SessionEngine.js"

export type ReviewError = EngineError | MemoryNotFound | MemoryStoreFailure

const pending = (candidateId: string) =>
  Effect.gen(function* () {
    const candidate = yield* Effect.flatMap(MemoryStore, (store) => store.candidate(candidateId))
    if (candidate.status !== "pending") {
      return yield* new MemoryNotFound({ id: candidateId, message: `memory candidate ${candidateId} was already ${candidate.status}` })
    }
    return candidate
  })

/**
 * Approves a candidate: the decision goes into the log of the session it came from first,
 * then the memory becomes durable. Nothing writes durable memory without that event.
 */
export const approveMemory = (candidateId: string, by: string): Effect.Effect<Memory, ReviewError, SessionEngine | MemoryStore | Ids> =>
  Effect.gen(function* () {
    const candidate = yield* pending(candidateId)
    const store = yield* MemoryStore
    // Approving what is remembered already names the memory that holds it; the store keeps one.
    const existing = (yield* store.all).find((memory) => sameMemory(memory, candidate))
    const memoryId = existing?.id ?? (yield* Effect.flatMap(Ids, (ids) => ids.make("mem")))
    const engine = yield* SessionEngine
    const recorded = yield* engine.record(candidate.sessionId, {
      type: "memory.approved",
      payload: { candidateId, memoryId, text: candidate.text, scope: candidate.scope, by }
    })
    return yield* store.approve(candidateId, { id: memoryId, approvedAt: recorded.timestamp, approvedBy: by })
  })

export const rejectMemory = (candidateId: string, by: string, reason?: string): Effect.Effect<void, ReviewError, SessionEngine | MemoryStore> =>
  Effect.gen(function* () {
    const candidate = yield* pending(candidateId)
    const engine = yield* SessionEngine
    yield* engine.record(candidate.sessionId, {
      type: "memory.rejected",
      payload: { candidateId, by, ...(reason === undefined ? {} : { reason }) }
    })
    yield* Effect.flatMap(MemoryStore, (store) => store.reject(candidateId))
  })

/** Forgets an approved memory, on the record of the session it came from. */
export const deleteMemory = (memoryId: string, by: string): Effect.Effect<Memory, ReviewError, SessionEngine | MemoryStore> =>
  Effect.gen(function* () {
    const store = yield* MemoryStore
    const memory = (yield* store.all).find((m) => m.id === memoryId)
    if (memory === undefined) return yield* new MemoryNotFound({ id: memoryId, message: `no memory ${memoryId}` })
    const engine = yield* SessionEngine
    yield* engine.record(memory.evidence.sessionId, { type: "memory.deleted", payload: { memoryId, by } })
    return yield* store.remove(memoryId)
  })
