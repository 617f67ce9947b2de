import { Either } from "effect"
import { describe } from "./api.js"

export type CompactOutcome =
  | { readonly _tag: "compacted"; readonly summary: string | undefined }
  | { readonly _tag: "nothing" }
  /** A turn started meanwhile (from another client): compaction waits for an idle session. */
  | { readonly _tag: "busy" }
  | { readonly _tag: "failed"; readonly message: string }

/** What a Compact call's answer means for the person who asked. */
export const compactOutcomeOf = (
  result: Either.Either<{ readonly compacted: boolean; readonly summary?: string | undefined }, { readonly _tag: string }>
): CompactOutcome => {
  if (Either.isLeft(result)) return result.left._tag === "TurnInProgress" ? { _tag: "busy" } : { _tag: "failed", message: describe(result.left) }
  return result.right.compacted ? { _tag: "compacted", summary: result.right.summary } : { _tag: "nothing" }
}
