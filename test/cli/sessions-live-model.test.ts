import { describe, expect, it } from "@effect/vitest"
import type { PendingPermission, SessionListItem } from "../../src/domain/host.js"
import { applyFrame, asked, initialState, keysOf, type LiveState, listedSessions, liveStatus, newlyWaiting, pressKey } from "../../src/cli/sessions-live/model.js"
import { liveScreen, onceListing } from "../../src/cli/sessions-live/screen.js"

const item = (sessionId: string, fields: Partial<SessionListItem> = {}): SessionListItem => ({
  sessionId,
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  lastSequence: 3,
  running: false,
  status: "idle",
  archived: false,
  cwd: "/home/me/project",
  ...fields
})

const at = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, "0")}:00.000Z`
const running = (sessionId: string, minute: number, waitingQuestions?: number) =>
  item(sessionId, { running: true, status: "running", updatedAt: at(minute), ...(waitingQuestions === undefined ? {} : { waitingQuestions }) })

const LIMIT = 20
const load = (sessions: ReadonlyArray<SessionListItem>, answerable = true): LiveState =>
  applyFrame(initialState(answerable), { _tag: "Snapshot", sessions }, LIMIT)
const ids = (state: LiveState, limit = LIMIT) => listedSessions(state, limit).map((listed) => listed.sessionId)

const question: PendingPermission = { toolCallId: "call_1", turnId: "turn_1", tool: "write_file", risk: "write", summary: "write out.txt", input: {} }

describe("the live sessions view's model", () => {
  it("names each session's status: waiting for an answer, running, failed, interrupted, done", () => {
    expect(liveStatus(running("a", 1, 2))).toBe("waiting")
    expect(liveStatus(running("a", 1))).toBe("running")
    expect(liveStatus(item("a", { lastStopReason: "error" }))).toBe("failed")
    expect(liveStatus(item("a", { status: "interrupted" }))).toBe("interrupted")
    expect(liveStatus(item("a", { lastStopReason: "final" }))).toBe("done")
  })

  it("lists those waiting first, then running, then the rest newest first (at most the limit of them); archived and idle subagents left out", () => {
    const state = load([
      item("old", { updatedAt: at(1) }),
      item("failed", { updatedAt: at(5), lastStopReason: "error" }),
      running("busy", 2),
      running("asks", 0, 1),
      item("archived", { updatedAt: at(9), archived: true }),
      item("child", { updatedAt: at(8), parentSessionId: "old" }),
      running("working-child", 3)
    ])
    expect(ids(state)).toEqual(["asks", "working-child", "busy", "failed", "old"])
    expect(ids(state, 1)).toEqual(["asks", "working-child", "busy", "failed"])
  })

  it("follows the host's frames: updated and removed sessions, the selection kept on its session as the order changes", () => {
    let state = load([running("a", 1), item("b", { updatedAt: at(2) })])
    expect(state.selected).toBe("a")
    state = pressKey(state, "down", LIMIT).state
    expect(state.selected).toBe("b")
    state = applyFrame(state, { _tag: "Updated", session: running("b", 3, 1) }, LIMIT)
    expect(ids(state)).toEqual(["b", "a"])
    expect(state.selected).toBe("b")
    state = applyFrame(state, { _tag: "Removed", sessionId: "b" }, LIMIT)
    expect(state.selected).toBe("a")
    expect(applyFrame(state, { _tag: "KeepAlive" }, LIMIT)).toBe(state)
  })

  it("notifies of a session that starts waiting, not of those waiting in the first list nor of one still waiting", () => {
    const first = load([running("a", 1, 1), running("b", 1)])
    expect(newlyWaiting(initialState(true), first)).toEqual([])
    const next = applyFrame(first, { _tag: "Updated", session: running("b", 2, 1) }, LIMIT)
    expect(newlyWaiting(first, next).map((listed) => listed.sessionId)).toEqual(["b"])
    const fresh = applyFrame(next, { _tag: "Updated", session: running("c", 3, 1) }, LIMIT)
    expect(newlyWaiting(next, fresh).map((listed) => listed.sessionId)).toEqual(["c"])
  })

  it("Enter opens the selected session; a fetches its question, y or n answers it, Esc goes back, q quits", () => {
    const state = load([running("a", 1, 1), item("b")])
    expect(pressKey(state, "enter", LIMIT).action).toEqual({ _tag: "Attach", sessionId: "a" })
    expect(pressKey(state, "quit", LIMIT).action).toEqual({ _tag: "Quit" })
    expect(pressKey(state, "answer", LIMIT).action).toEqual({ _tag: "Ask", sessionId: "a" })
    const asking = asked(state, "a", question)
    expect(asking.asking?.question.toolCallId).toBe("call_1")
    const answered = pressKey(asking, "yes", LIMIT)
    expect(answered.action).toEqual({ _tag: "Respond", sessionId: "a", toolCallId: "call_1", decision: "allow" })
    expect(answered.state.asking).toBeUndefined()
    expect(pressKey(asking, "no", LIMIT).action).toMatchObject({ decision: "deny" })
    expect(pressKey(asking, "back", LIMIT).state.asking).toBeUndefined()
    // A key that answers nothing while a question shows does nothing.
    expect(pressKey(asking, "down", LIMIT)).toEqual({ state: asking, action: { _tag: "None" } })
  })

  it("a answers only a waiting session, only through a host; a plan is read in the session; a question answered elsewhere goes away", () => {
    const state = load([running("a", 1, 1), item("b")])
    const onB = pressKey(state, "down", LIMIT).state
    expect(pressKey(onB, "answer", LIMIT)).toMatchObject({ action: { _tag: "None" }, state: { note: "b waits for no answer" } })
    expect(pressKey(load([running("a", 1, 1)], false), "answer", LIMIT).state.note).toContain("no local host runs")
    expect(asked(state, "a", { ...question, plan: "1. do it" }).asking).toBeUndefined()
    expect(asked(state, "a", undefined).note).toBe("no question waits in a now")
    const asking = asked(state, "a", question)
    expect(applyFrame(asking, { _tag: "Updated", session: running("a", 2) }, LIMIT).asking).toBeUndefined()
  })

  it("reads a terminal's input as keys: arrows, vi keys, Enter, Esc, Ctrl-C; other sequences do nothing", () => {
    expect(keysOf("\x1b[A\x1b[Bjk\r")).toEqual(["up", "down", "down", "up", "enter"])
    expect(keysOf("\x1bOA")).toEqual(["up"])
    expect(keysOf("\x1b")).toEqual(["back"])
    expect(keysOf("\x03")).toEqual(["quit"])
    expect(keysOf("\x1b[15~x")).toEqual(["other", "other"])
    expect(keysOf("ayn")).toEqual(["answer", "yes", "no"])
  })
})

describe("the live sessions view's screen", () => {
  const look = { color: false, now: Date.parse(at(10)), home: "/home/me", limit: LIMIT, source: "local host" }
  const text = (lines: ReadonlyArray<{ readonly text: string }>) => lines.map((line) => line.text).join("\n")

  it("shows the counts, the table with the selected row marked, the question being answered and the keys, each line narrower than the terminal", () => {
    const state = asked(load([running("ses_a", 9, 1), item("ses_b", { title: "fix the test", lastStopReason: "final" })]), "ses_a", question)
    const shown = text(liveScreen(state, { width: 100, height: 20 }, look))
    expect(shown).toContain("local host · 0 running, 1 waiting for an answer")
    expect(shown).toMatch(/› waiting\s+ses_a\s+1 min ago\s+~\/project/)
    expect(shown).toMatch(/ {2}done\s+ses_b/)
    expect(shown).toContain("ses_a asks to run write_file (write)")
    expect(shown).toContain("[y] allow once  [n] deny")
    for (const line of liveScreen(state, { width: 40, height: 20 }, look)) expect([...line.text].length).toBeLessThan(40)
  })

  it("keeps to the terminal's height, the selection in sight", () => {
    const many = Array.from({ length: 30 }, (_, i) => item(`ses_${String(i).padStart(2, "0")}`, { updatedAt: at(59 - i) }))
    let state = load(many)
    for (let i = 0; i < 25; i++) state = pressKey(state, "down", LIMIT).state
    const lines = liveScreen(state, { width: 80, height: 12 }, look)
    expect(lines.length).toBeLessThanOrEqual(12)
    expect(text(lines)).toMatch(/› done\s+ses_19/)
  })

  it("a title, a path or a question can neither forge a row nor send the terminal a control", () => {
    const hostile = "x\n\x1b[2J\x1b]52;c;aGk=\x07\u202eevil"
    const state = asked(load([running("ses_a", 9, 1), item("ses_b", { title: hostile, cwd: `/tmp/${hostile}` })]), "ses_a", { ...question, tool: hostile, summary: hostile, detail: hostile })
    const shown = text(liveScreen(state, { width: 200, height: 30 }, { ...look, color: true })) + onceListing(state, 200, look).text
    expect(shown.replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f\u202e]/)
  })

  it("prints once without the selection and keys", () => {
    const once = onceListing(load([running("ses_a", 9)]), 80, look).text
    expect(once).toMatch(/^STATUS\s+SESSION\s+UPDATED\s+WORKSPACE\s+TITLE\nrunning\s+ses_a/)
    expect(once).not.toContain("›")
    expect(onceListing(load([]), 80, look).text).toBe("no running or recent sessions\n")
  })
})
