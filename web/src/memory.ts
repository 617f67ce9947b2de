import { Effect, Either } from "effect"
import { useCallback, useMemo } from "preact/hooks"
import { type Answer, type Api, describe } from "./api.js"
import { usePolled } from "./polled.js"

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
  const lists = usePolled(api, (client) => Effect.all([client.ListMemoryCandidates(), client.ListMemories({})], { concurrency: 2 }), refreshMs)
  const { refresh } = lists
  const candidates = useMemo(() => (lists.value === undefined ? undefined : newestFirst(lists.value[0], (c) => c.proposedAt)), [lists.value])
  const memories = useMemo(() => (lists.value === undefined ? undefined : newestFirst(lists.value[1], (m) => m.approvedAt)), [lists.value])

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

  return { candidates, memories, error: lists.error, refresh, review, remove }
}
