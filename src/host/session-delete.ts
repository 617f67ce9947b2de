import * as Effect from "effect/Effect"
import { type EngineError, SessionNotFound, TurnInProgress } from "../domain/errors.js"
import type { EventStoreShape, SessionSummary } from "../services/EventStore.js"
import type { MemoryStoreFailure, MemoryStoreShape } from "../services/MemoryStore.js"

export interface DeleteDeps {
  readonly store: EventStoreShape
  readonly memory: MemoryStoreShape
  /** The sessions working in this process now. */
  readonly working: Effect.Effect<ReadonlySet<string>>
  /** Lets a session's actor (and what it holds: MCP servers, cached state) go. */
  readonly evict: (sessionId: string) => Effect.Effect<void>
  /** Tells the session list's watchers the session is gone. */
  readonly forget: (sessionId: string) => Effect.Effect<void>
  /** Drops what a person allowed "for the session" in it: an import under its id later must not inherit it. */
  readonly forgetAnswers: (sessionId: string) => Effect.Effect<void>
}

/** The session and its subagent sessions, at any depth, children after their parent. */
export const sessionTree = (listing: ReadonlyArray<SessionSummary>, sessionId: string): ReadonlyArray<string> => {
  const children = new Map<string, Array<string>>()
  for (const summary of listing) {
    if (summary.parentSessionId === undefined) continue
    const siblings = children.get(summary.parentSessionId) ?? []
    siblings.push(summary.sessionId)
    children.set(summary.parentSessionId, siblings)
  }
  const tree: Array<string> = []
  const seen = new Set<string>()
  const visit = (id: string) => {
    // A log could name itself or an ancestor as parent (an imported, unverified one): each once.
    if (seen.has(id)) return
    seen.add(id)
    tree.push(id)
    for (const child of children.get(id) ?? []) visit(child)
  }
  visit(sessionId)
  return tree
}

/**
 * Deletes a session with its subagent sessions: their logs and listing lines, their actors in
 * this process, the answers given "for the session" in them, the memory candidates they
 * proposed that wait for review (nobody could settle them on a log that is gone; approved
 * memories stay the person's). Refused while a turn runs
 * on any of them, here or in another process sharing the store: their turn leases are taken
 * first and held until the logs are gone, so no turn starts in between. Gives the ids deleted,
 * the session first.
 */
export const deleteSessionTree = (deps: DeleteDeps, sessionId: string, by: string): Effect.Effect<ReadonlyArray<string>, EngineError | MemoryStoreFailure> =>
  Effect.scoped(
    Effect.gen(function* () {
      const { store } = deps
      if ((yield* store.head(sessionId))._tag === "None") return yield* new SessionNotFound({ sessionId })
      const tree = sessionTree(yield* store.listSessions, sessionId)
      const working = yield* deps.working
      const busyHere = tree.find((id) => working.has(id))
      if (busyHere !== undefined) return yield* new TurnInProgress({ sessionId: busyHere })
      for (const id of tree) {
        const held = yield* store.leases.hold(id, { waitForExpiry: false })
        if (!held) return yield* new TurnInProgress({ sessionId: id, elsewhere: true })
      }
      const candidates = (yield* deps.memory.pending).filter((candidate) => tree.includes(candidate.sessionId))
      for (const id of tree) {
        yield* deps.evict(id)
        yield* store.deleteSession(id)
        yield* deps.forgetAnswers(id)
        yield* deps.forget(id)
      }
      // One settled meanwhile by someone else is settled all the same.
      yield* Effect.forEach(candidates, (candidate) => Effect.catchTag(deps.memory.reject(candidate.id), "MemoryNotFound", () => Effect.void), {
        discard: true
      })
      yield* Effect.logInfo(`deleted session ${sessionId}${tree.length > 1 ? ` and ${tree.length - 1} subagent sessions` : ""}, by ${by}`)
      return tree
    })
  )
