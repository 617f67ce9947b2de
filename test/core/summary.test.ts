import { describe, expect, it } from "@effect/vitest"
import { parseSections, summaryText } from "../../src/core/summary.js"

describe("structured compaction summaries", () => {
  it("splits a summary by its headings, in any of the usual heading forms", () => {
    expect(parseSections("## Goal\nShip it.\n\n**Decisions and constraints**\nNo new deps.\nProgress: tests pass.\n# Next steps\nRelease.\nOpen questions:\nnone")).toEqual({
      goal: "Ship it.",
      decisions: "No new deps.",
      progress: "tests pass.",
      nextStep: "Release.",
      openQuestions: "none"
    })
  })

  it("keeps text the model wrote outside the format in progress, so nothing is lost", () => {
    expect(parseSections("I looked at the code.\n\n## Goal\nFix the bug.\n## Progress\nFound it.")).toMatchObject({
      goal: "Fix the bug.",
      progress: "I looked at the code.\n\nFound it.",
      nextStep: ""
    })
    expect(parseSections("Just prose, no headings.").progress).toBe("Just prose, no headings.")
  })

  it("a line that only starts like a heading is prose", () => {
    expect(parseSections("## Progress\nThe goal of the refactor: fewer files.").progress).toBe("The goal of the refactor: fewer files.")
  })

  it("what the model reads: non-empty sections under their headings and the files from the log; an old summary as it was", () => {
    const text = summaryText({
      summary: "x",
      throughSequence: 9,
      sections: { goal: "G", decisions: "", progress: "P", nextStep: "N", openQuestions: "" },
      changedFiles: ["a.ts", "b/c.ts"],
      tokensBefore: 1,
      tokensAfter: 1,
      turns: [],
      trigger: "budget"
    })
    expect(text).toBe(
      "Summary of the earlier conversation (older turns were compacted):\n\n## Goal\n\nG\n\n## Progress\n\nP\n\n## Next step\n\nN\n\n" +
        "## Files changed so far (from the session log)\n\n- a.ts\n- b/c.ts"
    )
    expect(summaryText({ summary: "old style", throughSequence: 9, tokensBefore: 1, tokensAfter: 1, turns: [], trigger: "request" })).toBe(
      "Summary of the earlier conversation (older turns were compacted):\n\nold style"
    )
  })
})
