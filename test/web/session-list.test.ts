import { describe, expect, it } from "@effect/vitest"
import type { SessionListItem } from "../../src/domain/host.js"
import { applyListFrame, paneStatus, rowStatus, sessionTitle, statusLabels, visibleSessions } from "../../web/src/session-list.js"

const item = (sessionId: string, updatedAt: string, extra: Partial<SessionListItem> = {}): SessionListItem => ({
  sessionId,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt,
  lastSequence: 1,
  running: false,
  status: "idle",
  archived: false,
  ...extra
})

const ids = (sessions: ReadonlyArray<SessionListItem> | undefined) => sessions?.map((s) => s.sessionId)

describe("the session list", () => {
  it("takes a snapshot, then updates one session at a time, newest first, and ignores keep-alives", () => {
    const a = item("ses_a", "2025-01-01T00:00:01.000Z")
    const b = item("ses_b", "2025-01-01T00:00:02.000Z")
    const snapshot = applyListFrame(undefined, { _tag: "Snapshot", sessions: [a, b] })
    expect(ids(snapshot)).toEqual(["ses_b", "ses_a"])
    const running = applyListFrame(snapshot, { _tag: "Updated", session: { ...a, updatedAt: "2025-01-01T00:00:03.000Z", running: true, status: "running" } })
    expect(ids(running)).toEqual(["ses_a", "ses_b"])
    expect(running?.[0]?.status).toBe("running")
    const created = applyListFrame(running, { _tag: "Updated", session: item("ses_c", "2025-01-01T00:00:04.000Z") })
    expect(ids(created)).toEqual(["ses_c", "ses_a", "ses_b"])
    expect(applyListFrame(created, { _tag: "KeepAlive" })).toBe(created)
    // A deleted one goes; one not in the list changes nothing.
    expect(ids(applyListFrame(created, { _tag: "Removed", sessionId: "ses_a" }))).toEqual(["ses_c", "ses_b"])
    expect(ids(applyListFrame(created, { _tag: "Removed", sessionId: "ses_zzz" }))).toEqual(["ses_c", "ses_a", "ses_b"])
    // A new snapshot (after a reconnect) replaces whatever the list had.
    expect(ids(applyListFrame(created, { _tag: "Snapshot", sessions: [b] }))).toEqual(["ses_b"])
  })

  it("searches titles, directories and ids, in any case, and hides archived sessions unless asked", () => {
    const sessions = [
      item("ses_notes", "2025-01-01T00:00:03.000Z", { title: "Fix the Notes", cwd: "/home/sam/notes" }),
      item("ses_build", "2025-01-01T00:00:02.000Z", { title: "CI build", cwd: "/work/app" }),
      item("ses_old", "2025-01-01T00:00:01.000Z", { title: "Old notes", cwd: "/work/app", archived: true })
    ]
    expect(ids(visibleSessions(sessions, "", false))).toEqual(["ses_notes", "ses_build"])
    expect(ids(visibleSessions(sessions, "", true))).toEqual(["ses_notes", "ses_build", "ses_old"])
    expect(ids(visibleSessions(sessions, "NOTES", false))).toEqual(["ses_notes"])
    expect(ids(visibleSessions(sessions, "notes", true))).toEqual(["ses_notes", "ses_old"])
    expect(ids(visibleSessions(sessions, "/work/app", false))).toEqual(["ses_build"])
    expect(ids(visibleSessions(sessions, "ses_bui", false))).toEqual(["ses_build"])
    expect(ids(visibleSessions(sessions, "  app   ci ", false))).toEqual(["ses_build"])
    expect(ids(visibleSessions(sessions, "nothing like it", true))).toEqual([])
  })

  it("shows a session as running from its own stream, waiting when a question is open, failed after a failed turn, and as interrupted only when the list says so", () => {
    const view = (running: boolean, questionsOpen = 0, lastTurnFailed = false) => ({ running, questionsOpen, lastTurnFailed })
    expect(paneStatus(view(true), "idle")).toBe("running")
    expect(paneStatus(view(true), "interrupted")).toBe("running")
    expect(paneStatus(view(true, 1), "running")).toBe("waiting")
    expect(paneStatus(view(false), "interrupted")).toBe("interrupted")
    expect(paneStatus(view(false), "running")).toBe("idle")
    expect(paneStatus(view(false), undefined)).toBe("idle")
    expect(paneStatus(view(false, 0, true), "idle")).toBe("failed")
    expect(paneStatus(view(true, 0, true), "running")).toBe("running")
  })

  it("marks in the list a session that waits on you and one whose last turn failed; a line from an older server reads as before", () => {
    const at = "2025-01-01T00:00:01.000Z"
    expect(rowStatus(item("ses_a", at, { status: "running", running: true, waitingQuestions: 2 }))).toBe("waiting")
    expect(rowStatus(item("ses_a", at, { status: "running", running: true }))).toBe("running")
    expect(rowStatus(item("ses_a", at, { lastStopReason: "error" }))).toBe("failed")
    expect(rowStatus(item("ses_a", at, { lastStopReason: "cancelled" }))).toBe("idle")
    expect(rowStatus(item("ses_a", at, { status: "interrupted", lastStopReason: "error" }))).toBe("interrupted")
    expect(rowStatus(item("ses_a", at))).toBe("idle")
    expect(statusLabels[rowStatus(item("ses_a", at, { status: "running", running: true, waitingQuestions: 1 }))]).toBe("waiting for you")
  })
})

describe("a session's name on the page (round 37: the Permissions and Memory views showed a title raw)", () => {
  it("shows the title with every invisible character visibly, else the id", () => {
    const sessions = [item("ses_a", "2025-01-01T00:00:01.000Z", { title: "fix \u202Egnp.exe\u202C tests\u200B\uFE0F" })]
    expect(sessionTitle(sessions, "ses_a")).toBe("fix <U+202E>gnp.exe<U+202C> tests<U+200B><U+FE0F>")
    expect(sessionTitle(sessions, "ses_b")).toBe("ses_b")
    expect(sessionTitle(undefined, "ses_a")).toBe("ses_a")
  })
})
