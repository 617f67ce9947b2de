import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { TurnInProgress } from "../../src/domain/errors.js"
import { MemoryNotFound, MemoryStoreFailure } from "../../src/services/MemoryStore.js"
import { RememberedAnswerNotFound } from "../../src/services/PermissionEngine.js"
import { Unexpected } from "../../web/src/api.js"
import { compactOutcomeOf } from "../../web/src/compaction.js"
import { failureWords } from "../../web/src/failure-words.js"
import { outcomeOf } from "../../web/src/memory.js"

describe("what the page says after a memory action or a compaction", () => {
  it("says quietly that someone else reviewed or deleted it first, and loudly when something broke", () => {
    expect(outcomeOf(Either.right(undefined), "Already reviewed elsewhere.")).toEqual({ _tag: "done" })
    const gone = new MemoryNotFound({ id: "mem_1", message: "memory candidate mem_1 was already approved" })
    expect(outcomeOf(Either.left(gone), "Already reviewed elsewhere.")).toEqual({ _tag: "gone", message: "Already reviewed elsewhere." })
    expect(outcomeOf(Either.left(new MemoryStoreFailure({ message: "disk full" })), "gone")).toEqual({ _tag: "failed", message: "disk full" })
    expect(outcomeOf(Either.left(new Unexpected({ message: "boom" })), "gone")).toEqual({ _tag: "failed", message: "boom" })
  })

  it("says quietly that a remembered answer was revoked elsewhere, and a memory's absence is not that", () => {
    const revoked = new RememberedAnswerNotFound({ id: "ans_1", message: "no remembered answer ans_1" })
    expect(outcomeOf(Either.left(revoked), "Already revoked elsewhere.", "RememberedAnswerNotFound")).toEqual({ _tag: "gone", message: "Already revoked elsewhere." })
    const memoryGone = new MemoryNotFound({ id: "mem_1", message: "memory mem_1 is gone" })
    expect(outcomeOf(Either.left(memoryGone), "Already revoked elsewhere.", "RememberedAnswerNotFound")._tag).toBe("failed")
  })

  it("tells a summary from nothing to compact, and a running turn from a failure", () => {
    expect(compactOutcomeOf(Either.right({ compacted: true, summary: "Earlier: notes fixed." }))).toEqual({ _tag: "compacted", summary: "Earlier: notes fixed." })
    expect(compactOutcomeOf(Either.right({ compacted: true }))).toEqual({ _tag: "compacted", summary: undefined })
    expect(compactOutcomeOf(Either.right({ compacted: false }))).toEqual({ _tag: "nothing" })
    expect(compactOutcomeOf(Either.left(new TurnInProgress({ sessionId: "ses_1" })))).toEqual({ _tag: "busy" })
    expect(compactOutcomeOf(Either.left(new Unexpected({ message: "boom" })))).toEqual({ _tag: "failed", message: "boom" })
  })

  it("says in words why a turn failed, whatever code the log has", () => {
    expect(failureWords("overloaded")).toBe("The model provider is overloaded, even after waiting and trying again.")
    expect(failureWords("model_unavailable")).toBe("The session's model cannot be used on this server.")
    expect(failureWords("interrupted")).toBe("The process running this turn stopped before the turn ended.")
    expect(failureWords("a_code_from_a_newer_server")).toBe("The turn failed.")
    expect(failureWords(undefined)).toBe("The turn failed.")
  })
})
