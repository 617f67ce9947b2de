import { Either } from "effect"
import { RewindDrift, type RewindResult, type RewindWhat } from "../../src/domain/rewind.js"
import { describe } from "./api.js"

export type { RewindWhat }

/** What the page asked for; kept so "Rewind anyway" can send it again with `force`. */
export type RewindRequest =
  | { readonly _tag: "Rewind"; readonly turn: number; readonly what: RewindWhat }
  | { readonly _tag: "Redo" }

export type RewindOutcome =
  | { readonly _tag: "done"; readonly request: RewindRequest; readonly result: RewindResult }
  /** Files changed since the last checkpoint by something else: nothing was changed, the person decides. */
  | { readonly _tag: "drift"; readonly request: RewindRequest; readonly paths: ReadonlyArray<string> }
  | { readonly _tag: "failed"; readonly message: string }

/** What a Rewind or Redo call's answer means for the person who asked. */
export const rewindOutcomeOf = (request: RewindRequest, result: Either.Either<RewindResult, unknown>): RewindOutcome => {
  if (Either.isRight(result)) return { _tag: "done", request, result: result.right }
  const error = result.left
  if (error instanceof RewindDrift) return { _tag: "drift", request, paths: error.paths }
  return { _tag: "failed", message: describe(error) }
}
