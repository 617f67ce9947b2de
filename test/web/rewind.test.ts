import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { AgentEvent } from "../../src/domain/events.js"
import type { HostFrame } from "../../src/domain/host.js"
import { RewindDrift, RewindUnavailable } from "../../src/domain/rewind.js"
import { rewindOutcomeOf } from "../../web/src/rewind.js"
import { slotMarks } from "../../web/src/slot-marks.js"
import { applyEvent, applyFrame, emptyTimeline, type NoteBlock } from "../../web/src/timeline.js"
import { formatNotKept } from "../../web/src/turn-stats.js"
import { recorder } from "./events.js"

const usage = { inputTokens: 10, outputTokens: 5 }

/** Turn `n` of a session that writes notes.txt: a prompt, a write between its two checkpoints, an answer. */
const writingTurn = (e: ReturnType<typeof recorder>, n: number, extra: { readonly notKept?: ReadonlyArray<object> } = {}) => {
  const turnId = `turn_${n}`
  return [
    e("turn.started", { promptPreview: `write ${n}` }, turnId),
    e("user.message", { content: `write version ${n}`, mode: "queue" }, turnId),
    e("model.tool_call_requested", { toolCallId: `call_${n}`, name: "write_file", input: { path: "notes.txt", content: `v${n}\n` } }, turnId),
    e("model.completed", { stopReason: "tool_calls", usage }, turnId),
    e("checkpoint.recorded", { treeId: `tree_${n}a`, changed: n === 1 ? [] : ["notes.txt"], notKept: [], trigger: "before_tools" }, turnId),
    e("tool.completed", { toolCallId: `call_${n}`, output: "wrote notes.txt", isError: false, durationMs: 1 }, turnId),
    e("checkpoint.recorded", { treeId: `tree_${n}b`, changed: ["notes.txt", "log.txt"], notKept: extra.notKept ?? [], trigger: "after_tools" }, turnId),
    e("model.delta", { text: `Wrote version ${n}.` }, turnId),
    e("model.completed", { stopReason: "final", usage }, turnId),
    e("turn.completed", { stopReason: "final" }, turnId)
  ]
}

/** Two turns (sequences 2..11 and 12..21), then a rewind of files and conversation to before turn 2. */
const rewoundSession = () => {
  const e = recorder()
  const events = [
    e("session.created", { cwd: "/work", client: "web" }, undefined),
    ...writingTurn(e, 1, { notKept: [{ path: "big.bin", reason: "file_too_large", bytes: 3 * 1024 * 1024 }] }),
    ...writingTurn(e, 2),
    ...oneAppend([
      e("checkpoint.restored", { treeId: "tree_1b", checkpointSequence: 8, paths: ["notes.txt"], drift: [], forced: false, by: "web", redo: false }, undefined),
      e("conversation.rewound", { toSequence: 11, by: "web", redo: false }, undefined)
    ])
  ]
  return { e, events }
}

/** Events committed as one append share their timestamp, the first one's. */
const oneAppend = (events: ReadonlyArray<AgentEvent>): ReadonlyArray<AgentEvent> => events.map((event) => ({ ...event, timestamp: events[0]?.timestamp ?? event.timestamp }))

const replay = (events: ReadonlyArray<AgentEvent>) => events.reduce(applyEvent, emptyTimeline("ses_1"))

const notes = (events: ReadonlyArray<AgentEvent>) => replay(events).blocks.flatMap((b): Array<NoteBlock> => (b._tag === "note" ? [b] : []))

describe("rewind and fork in the web timeline", () => {
  it("sums a turn's checkpoints on its summary: each changed file once, the files not kept with why", () => {
    const { events } = rewoundSession()
    const [first, second] = replay(events).turns
    expect(first?.checkpoint).toEqual({
      changed: ["notes.txt", "log.txt"],
      notKept: [{ path: "big.bin", reason: "file_too_large", bytes: 3 * 1024 * 1024 }]
    })
    expect(second?.checkpoint?.changed).toEqual(["notes.txt", "log.txt"])
    expect(first?.checkpoint?.notKept.map(formatNotKept)).toEqual(["big.bin (3.0 MB, over the size cap per file)"])
  })

  it("notes a restore with its paths and a rewind of the conversation, and offers a redo until one is done", () => {
    const { e, events } = rewoundSession()
    expect(notes(events).map((n) => [n.topic, n.tone, n.text])).toEqual([
      ["rewind", "info", "Files rewound by web to the checkpoint at event 8: restored notes.txt"],
      ["rewind", "info", "Conversation rewound by web to event 11: what followed stays in the log, shown as rewound"]
    ])
    // The restore and the rewind are one action (one append: adjacent, same time and client): one redo undoes it.
    expect(replay(events).redo.redoable).toBe(1)
    const redone = [
      ...events,
      ...oneAppend([
        e("checkpoint.restored", { treeId: "tree_2b", checkpointSequence: 18, paths: ["notes.txt"], drift: ["notes.txt"], forced: true, by: "cli", redo: true }, undefined),
        e("conversation.rewound", { toSequence: 21, by: "cli", redo: true }, undefined)
      ])
    ]
    expect(replay(redone).redo.redoable).toBe(0)
    expect(notes(redone).slice(2).map((n) => [n.tone, n.text])).toEqual([
      ["warning", "Redo by cli: files put back as they were at event 18: restored notes.txt (overwrote changes made outside the agent: notes.txt)"],
      ["info", "Redo by cli: the conversation is back as it was at event 21"]
    ])
  })

  it("counts the rewinds a redo can still undo, each redo undoing the newest", () => {
    const e = recorder()
    const rewound = (toSequence: number, redo: boolean) => e("conversation.rewound", { toSequence, by: "web", redo }, undefined)
    const turn = (n: number) => e("user.message", { content: `turn ${n}`, mode: "queue" }, `turn_${n}`)
    const counts = [e("session.created", { cwd: "/work", client: "web" }, undefined), turn(1), rewound(1, false), turn(2), rewound(1, false), rewound(3, true)]
      .reduce((views, event) => [...views, applyEvent(views.at(-1) ?? emptyTimeline("ses_1"), event)], new Array<ReturnType<typeof emptyTimeline>>())
      .map((view) => view.redo.redoable)
    // Two rewinds with a prompt between them are two actions; the redo right after the second is a third.
    expect(counts).toEqual([0, 0, 1, 1, 2, 1])
  })

  it("lists a long restore in full on demand", () => {
    const e = recorder()
    const paths = Array.from({ length: 10 }, (_, i) => `src/file${i}.ts`)
    const [note] = notes([
      e("session.created", { cwd: "/work", client: "web" }, undefined),
      e("checkpoint.restored", { treeId: "t", checkpointSequence: 1, paths, drift: [], forced: false, by: "web", redo: false }, undefined)
    ])
    expect(note?.text).toMatch(/src\/file7\.ts and 2 more$/)
    expect(note?.detail?.split("\n")).toEqual(paths)
  })

  it("dims what a rewind took out, labels each rewound run once, and offers actions only on turns still in the conversation", () => {
    const { events } = rewoundSession()
    const state = replay(events)
    const marks = slotMarks(state)
    const shown = state.blocks.map((block, i) => ({ tag: block._tag, turn: block.turnId, ...marks[i] }))
    expect(shown.filter((s) => s.rewound).every((s) => s.turn === "turn_2")).toBe(true)
    expect(shown.filter((s) => s.turn === "turn_2").every((s) => s.rewound)).toBe(true)
    expect(shown.filter((s) => s.firstRewound)).toEqual([expect.objectContaining({ tag: "user", turn: "turn_2" })])
    // Turn 1: "Rewind to here" on its prompt, "Fork from here" at its end (sequence 11); turn 2 offers neither.
    expect(shown.flatMap((s) => (s.rewindTurn === undefined ? [] : [s.rewindTurn]))).toEqual([1])
    expect(shown.flatMap((s) => (s.forkAt === undefined ? [] : [s.forkAt]))).toEqual([11])
    // The notes of the rewind are the conversation's now.
    expect(shown.filter((s) => s.tag === "note").every((s) => !s.rewound)).toBe(true)
  })

  it("numbers turns in the order they started, rewound ones included, and brings rewound turns back on a redo", () => {
    const { e, events } = rewoundSession()
    const third = [...events, ...writingTurn(e, 3)]
    const after = slotMarks(replay(third))
    expect(after.flatMap((s) => (s.rewindTurn === undefined ? [] : [s.rewindTurn]))).toEqual([1, 3])
    // The redo goes back to just before the rewind's first event (the restore at 22).
    const redone = [...third, e("conversation.rewound", { toSequence: 21, by: "web", redo: true }, undefined)]
    const state = replay(redone)
    const marks = slotMarks(state)
    // Turn 2 is back; turn 3, after the point the redo went back to, is rewound now (the rewind's notes stay as they are).
    const rewoundTurns = new Set(state.blocks.flatMap((b, i) => (marks[i]?.rewound === true ? [b.turnId ?? b._tag] : [])))
    expect([...rewoundTurns]).toEqual(["turn_3"])
    expect(marks.flatMap((s) => (s.rewindTurn === undefined ? [] : [s.rewindTurn]))).toEqual([1, 2])
  })

  it("keeps where a fork came from in the header, also over a baseline", () => {
    const e = recorder("ses_fork")
    const state = replay([
      e("session.created", { cwd: "/work", client: "rpc" }, undefined),
      e("session.forked", { sourceSessionId: "ses_1", atSequence: 11, copiedThrough: 11 }, undefined)
    ])
    expect(state.header?.forkedFrom).toEqual({ sessionId: "ses_1", atSequence: 11 })
    const baseline: HostFrame = {
      _tag: "Baseline",
      session: {
        sessionId: "ses_fork",
        cwd: "/work",
        client: "rpc",
        createdAt: "2025-01-01T00:00:01.000Z",
        lastSequence: 2,
        running: false,
        inbox: { nextTurn: [], nextStep: [] },
        permissionMode: "default",
        pendingPermissions: []
      }
    }
    expect(applyFrame(state, baseline).header?.forkedFrom).toEqual({ sessionId: "ses_1", atSequence: 11 })
  })

  it("tells a rewind from a drift to confirm and from a failure", () => {
    const request = { _tag: "Rewind", turn: 2, what: "both" } as const
    const result = { restoredPaths: ["notes.txt"], drift: [], conversationTo: 11, checkpointSequence: 8 }
    expect(rewindOutcomeOf(request, Either.right(result))).toEqual({ _tag: "done", request, result })
    expect(rewindOutcomeOf(request, Either.left(new RewindDrift({ paths: ["notes.txt"] })))).toEqual({ _tag: "drift", request, paths: ["notes.txt"] })
    expect(rewindOutcomeOf({ _tag: "Redo" }, Either.left(new RewindUnavailable({ message: "nothing to redo" })))).toEqual({
      _tag: "failed",
      message: "nothing to redo"
    })
  })
})
