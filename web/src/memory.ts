import { Effect, Either } from "effect"
import { useCallback, useEffect, useRef, useState } from "preact/hooks"
import { type Answer, type Api, describe } from "./api.js"

export type MemoryCandidate = Answer<"ListMemoryCandidates">[number]
export type Memory = Answer<"ListMemories">[number]

/** How an approve, reject or delete went. `gone`: someone else got there first (another tab, the CLI). */
export type ActionOutcome =
  | { readonly _tag: "done" }
  | { readonly _tag: "gone"; readonly message: string }
  | { readonly _tag: "failed"; readonly message: string }

export interface MemoryReview {
  /** Candidates waiting for a decision, newest first; undefined until the first answer. */
  readonly candidates: ReadonlyArray<MemoryCandidate> | undefined
  /** Approved memories of every project, newest first; undefined until the first answer. */
  readonly memories: ReadonlyArray<Memory> | undefined
  readonly error: string | undefined
  readonly refresh: () => void
  readonly review: (candidateId: string, decision: "approve" | "reject") => Promise<ActionOutcome>
  readonly remove: (memoryId: string) => Promise<ActionOutcome>
}

/** Other clients review too, and sessions propose while they run: the lists are polled while the page is open. */
const refreshMs = 5_000

/** Who the log says decided: this page. */
const by = "web"

const newestFirst = <A>(items: ReadonlyArray<A>, at: (a: A) => string): ReadonlyArray<A> =>
  [...items].sort((a, b) => at(b).localeCompare(at(a)))

/**
 * A candidate, memory or remembered answer that is gone (`goneTag`) was settled by someone else:
 * said quietly; anything else is an error.
 */
export const outcomeOf = (
  result: Either.Either<unknown, { readonly _tag: string }>,
  gone: string,
  goneTag: string = "MemoryNotFound"
): ActionOutcome => {
  if (Either.isRight(result)) return { _tag: "done" }
  return result.left._tag === goneTag ? { _tag: "gone", message: gone } : { _tag: "failed", message: describe(result.left) }
}

/** Memory review for the whole page: the sidebar's badge, the memory view and the timeline's inline buttons. */
export const useMemoryReview = (api: Api): MemoryReview => {
  const [candidates, setCandidates] = useState<ReadonlyArray<MemoryCandidate> | undefined>(undefined)
  const [memories, setMemories] = useState<ReadonlyArray<Memory> | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  // Refreshes overlap (poll, action, event): only the newest request may set the lists.
  const latest = useRef(0)

  const refresh = useCallback(() => {
    const request = ++latest.current
    void api
      .call((client) => Effect.all([client.ListMemoryCandidates(), client.ListMemories({})], { concurrency: 2 }))
      .then((result) => {
        if (request !== latest.current) return
        if (result._tag === "Left") return setError(describe(result.left))
        const [pending, approved] = result.right
        setError(undefined)
        setCandidates(newestFirst(pending, (c) => c.proposedAt))
        setMemories(newestFirst(approved, (m) => m.approvedAt))
      })
  }, [api])

  useEffect(() => {
    refresh()
    const timer = setInterval(refresh, refreshMs)
    return () => clearInterval(timer)
  }, [refresh])

  const review = useCallback(
    async (candidateId: string, decision: "approve" | "reject") => {
      const result = await api.call((client) => client.ReviewMemory({ candidateId, decision, by }))
      refresh()
      return outcomeOf(result, "Already reviewed elsewhere.")
    },
    [api, refresh]
  )

  const remove = useCallback(
    async (memoryId: string) => {
      const result = await api.call((client) => client.DeleteMemory({ memoryId, by }))
      refresh()
      return outcomeOf(result, "Already deleted elsewhere.")
    },
    [api, refresh]
  )

  return { candidates, memories, error, refresh, review, remove }
}
