import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { MemoryEvidence, MemoryScope } from "../domain/events.js"

export const MemoryCandidate = Schema.Struct({
  id: Schema.String,
  sessionId: Schema.String,
  /** The project a `project` memory belongs to. */
  workspaceRoot: Schema.String,
  scope: MemoryScope,
  text: Schema.String,
  evidence: MemoryEvidence,
  proposedAt: Schema.String,
  status: Schema.Literal("pending", "approved", "rejected")
})
export type MemoryCandidate = typeof MemoryCandidate.Type

export const Memory = Schema.Struct({
  id: Schema.String,
  candidateId: Schema.String,
  scope: MemoryScope,
  /** Set for `project` memories: they enter the context of sessions in this workspace only. */
  workspaceRoot: Schema.optional(Schema.String),
  text: Schema.String,
  evidence: MemoryEvidence,
  approvedAt: Schema.String,
  approvedBy: Schema.String
})
export type Memory = typeof Memory.Type

export class MemoryNotFound extends Schema.TaggedError<MemoryNotFound>()("MemoryNotFound", {
  id: Schema.String,
  message: Schema.String
}) {}

export class MemoryStoreFailure extends Schema.TaggedError<MemoryStoreFailure>()("MemoryStoreFailure", {
  message: Schema.String,
  /** The failure underneath, when there was one, kept for whoever handles or logs this. */
  cause: Schema.optional(Schema.Defect)
}) {}

/**
 * Durable memory: conversation evidence -> candidate -> approval -> memory. Candidates have
 * no effect; only an approved memory enters the context. Callers record the decision in the
 * session's log before settling it here (see core/memory-review.ts).
 */
export interface MemoryStoreShape {
  readonly propose: (candidate: Omit<MemoryCandidate, "status">) => Effect.Effect<void, MemoryStoreFailure>
  readonly candidate: (id: string) => Effect.Effect<MemoryCandidate, MemoryNotFound | MemoryStoreFailure>
  readonly pending: Effect.Effect<ReadonlyArray<MemoryCandidate>, MemoryStoreFailure>
  readonly approve: (
    candidateId: string,
    memory: { readonly id: string; readonly approvedAt: string; readonly approvedBy: string }
  ) => Effect.Effect<Memory, MemoryNotFound | MemoryStoreFailure>
  readonly reject: (candidateId: string) => Effect.Effect<void, MemoryNotFound | MemoryStoreFailure>
  /** The memories a session in this workspace sees: its project's and the user's. */
  readonly forWorkspace: (workspaceRoot: string) => Effect.Effect<ReadonlyArray<Memory>, MemoryStoreFailure>
  readonly all: Effect.Effect<ReadonlyArray<Memory>, MemoryStoreFailure>
  readonly remove: (memoryId: string) => Effect.Effect<Memory, MemoryNotFound | MemoryStoreFailure>
}

export class MemoryStore extends Context.Tag("custom-agent/MemoryStore")<MemoryStore, MemoryStoreShape>() {}
