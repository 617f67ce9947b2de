import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { readFile } from "node:fs/promises"
import {
  Memory,
  MemoryCandidate,
  MemoryNotFound,
  MemoryStore,
  type MemoryStoreShape,
  MemoryStoreFailure
} from "../../services/MemoryStore.js"
import { writePrivateFile } from "../private-files.js"
import { sameMemory } from "../../domain/same-memory.js"
import { messageOf } from "../../domain/cause-message.js"
import { MAX_PENDING_CANDIDATES } from "../../domain/memory-limits.js"

export { MAX_PENDING_CANDIDATES }

const MemoryFile = Schema.Struct({
  candidates: Schema.Array(MemoryCandidate),
  memories: Schema.Array(Memory)
})
type MemoryFile = typeof MemoryFile.Type

/**
 * Candidates and approved memories in one JSON file (per user, in the data directory).
 * Writes go to a temporary file renamed over the old one, under a lock: a crash never leaves
 * half a file, and two writes never interleave.
 */
export const make = (file: string) =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)

    const read: Effect.Effect<MemoryFile, MemoryStoreFailure> = Effect.tryPromise({
      try: () => readFile(file, "utf8"),
      catch: (error) => error
    }).pipe(
      Effect.catchAll((error) =>
        typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT"
          ? Effect.succeed(undefined)
          : Effect.fail(new MemoryStoreFailure({ message: `${file}: cannot be read (${messageOf(error)})`, cause: error }))
      ),
      Effect.flatMap((text) =>
        text === undefined
          ? Effect.succeed<MemoryFile>({ candidates: [], memories: [] })
          : Schema.decodeUnknown(Schema.parseJson(MemoryFile))(text).pipe(
              Effect.mapError((error) => new MemoryStoreFailure({ message: `${file}: malformed memory file (${error.message})`, cause: error }))
            )
      )
    )

    const write = (content: MemoryFile) =>
      Effect.tryPromise({
        // Memories quote the user's work: private like the transcripts beside them.
        try: () => writePrivateFile(file, `${JSON.stringify(content, null, 2)}\n`),
        catch: (error) => new MemoryStoreFailure({ message: `${file}: cannot be written (${messageOf(error)})`, cause: error })
      })

    const update = <A, E>(change: (content: MemoryFile) => Effect.Effect<readonly [A, MemoryFile], E>) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const [result, next] = yield* change(yield* read)
          yield* write(next)
          return result
        })
      )

    const missingCandidate = (id: string) => new MemoryNotFound({ id, message: `no memory candidate ${id}` })
    const pendingCandidate = (content: MemoryFile, id: string) => {
      const found = content.candidates.find((c) => c.id === id)
      if (found === undefined) return Effect.fail(missingCandidate(id))
      if (found.status !== "pending") {
        return Effect.fail(new MemoryNotFound({ id, message: `memory candidate ${id} was already ${found.status}` }))
      }
      return Effect.succeed(found)
    }
    const settled = (content: MemoryFile, id: string, status: MemoryCandidate["status"]) =>
      content.candidates.map((c) => (c.id === id ? { ...c, status } : c))

    const store: MemoryStoreShape = {
      propose: (candidate) =>
        update((content) => {
          // A model proposing in a loop must not grow the file (rewritten whole on every change) without end.
          const waiting = content.candidates.filter((c) => c.status === "pending").length
          if (waiting >= MAX_PENDING_CANDIDATES) {
            return Effect.fail(
              new MemoryStoreFailure({ message: `${MAX_PENDING_CANDIDATES} memory candidates already wait for review; review them (custom-agent memory review) before more are kept` })
            )
          }
          return Effect.succeed([undefined, { ...content, candidates: [...content.candidates, { ...candidate, status: "pending" }] }] as const)
        }),
      candidate: (id) =>
        Effect.flatMap(read, (content) => {
          const found = content.candidates.find((c) => c.id === id)
          return found === undefined ? Effect.fail(missingCandidate(id)) : Effect.succeed(found)
        }),
      pending: Effect.map(read, (content) => content.candidates.filter((c) => c.status === "pending")),
      approve: (candidateId, approval) =>
        update((content) =>
          Effect.map(pendingCandidate(content, candidateId), (candidate) => {
            // Remembered already: the candidate is settled, no second entry is written, and the caller gets the first.
            const existing = content.memories.find((m) => sameMemory(m, candidate))
            if (existing !== undefined) return [existing, { ...content, candidates: settled(content, candidateId, "approved") }] as const
            const memory: Memory = {
              id: approval.id,
              candidateId,
              scope: candidate.scope,
              text: candidate.text,
              evidence: candidate.evidence,
              approvedAt: approval.approvedAt,
              approvedBy: approval.approvedBy,
              ...(candidate.scope === "project" ? { workspaceRoot: candidate.workspaceRoot } : {})
            }
            return [memory, { candidates: settled(content, candidateId, "approved"), memories: [...content.memories, memory] }] as const
          })
        ),
      reject: (candidateId) =>
        update((content) =>
          Effect.map(pendingCandidate(content, candidateId), () => [undefined, { ...content, candidates: settled(content, candidateId, "rejected") }] as const)
        ),
      forWorkspace: (workspaceRoot) =>
        Effect.map(read, (content) => content.memories.filter((m) => m.scope === "user" || m.workspaceRoot === workspaceRoot)),
      all: Effect.map(read, (content) => content.memories),
      remove: (memoryId) =>
        update((content) => {
          const found = content.memories.find((m) => m.id === memoryId)
          if (found === undefined) return Effect.fail(new MemoryNotFound({ id: memoryId, message: `no memory ${memoryId}` }))
          return Effect.succeed([found, { ...content, memories: content.memories.filter((m) => m.id !== memoryId) }] as const)
        })
    }
    return store
  })

export const layer = (file: string) => Layer.effect(MemoryStore, make(file))
