import { describe, expect, it } from "@effect/vitest"
import type { SessionListItem } from "../../src/domain/host.js"
import { questionsArrived } from "../../web/src/question-notices.js"

const line = (sessionId: string, waitingQuestions?: number): SessionListItem => ({
  sessionId,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  lastSequence: 1,
  running: waitingQuestions !== undefined,
  status: waitingQuestions === undefined ? "idle" : "running",
  archived: false,
  ...(waitingQuestions === undefined ? {} : { waitingQuestions })
})

const ids = (sessions: ReadonlyArray<SessionListItem>) => sessions.map((s) => s.sessionId)

describe("question notices", () => {
  it("tell of a session whose waiting questions went up, never of the first list or of answers", () => {
    expect(ids(questionsArrived(undefined, [line("ses_a", 1)]))).toEqual([])
    expect(ids(questionsArrived([line("ses_a"), line("ses_b")], [line("ses_a", 1), line("ses_b")]))).toEqual(["ses_a"])
    expect(ids(questionsArrived([line("ses_a", 1)], [line("ses_a", 2)]))).toEqual(["ses_a"])
    expect(ids(questionsArrived([line("ses_a", 2)], [line("ses_a", 1)]))).toEqual([])
    expect(ids(questionsArrived([line("ses_a", 1)], [line("ses_a")]))).toEqual([])
    // A session new to the list that already waits.
    expect(ids(questionsArrived([line("ses_a")], [line("ses_a"), line("ses_new", 1)]))).toEqual(["ses_new"])
  })
})
