import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, Stream } from "effect"
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import { AgentEvent } from "../../src/domain/events.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import { planImport, sessionLogProblem } from "../../src/domain/session-log.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { parseEventLines } from "../support/events.js"

type Draft = { readonly [K in AgentEvent["type"]]: { readonly type: K; readonly turnId?: string; readonly payload: Extract<AgentEvent, { type: K }>["payload"] } }[AgentEvent["type"]]

const decodeEvent = Schema.decodeUnknownSync(AgentEvent)

/** A log from drafts: ids, sequences 1..n and timestamps filled in. */
const logOf = (drafts: ReadonlyArray<Draft>, sessionId = "ses_1"): Array<AgentEvent> =>
  drafts.map((draft, i) => decodeEvent({ id: `evt_${i + 1}`, schemaVersion: 1, sessionId, sequence: i + 1, timestamp: "2026-01-01T00:00:00.000Z", ...draft }))

const created: Draft = { type: "session.created", payload: { cwd: "/w", client: "test" } }
const started = (turnId: string): Draft => ({ type: "turn.started", turnId, payload: { promptPreview: "hi" } })
const message = (turnId: string): Draft => ({ type: "user.message", turnId, payload: { content: "hi", mode: "queue" } })
const resolved = (turnId: string, toolCallId: string, decision: "allow" | "deny"): Draft => ({
  type: "permission.resolved",
  turnId,
  payload: { toolCallId, decision, scope: "once", by: "policy" }
})
const toolStarted = (turnId: string, toolCallId: string): Draft => ({ type: "tool.started", turnId, payload: { toolCallId, name: "shell" } })
const toolCompleted = (turnId: string, toolCallId: string): Draft => ({
  type: "tool.completed",
  turnId,
  payload: { toolCallId, output: "ok", isError: false, durationMs: 1 }
})
const completed = (turnId: string): Draft => ({ type: "turn.completed", turnId, payload: { stopReason: "final" } })
const toolOutput = (turnId: string, toolCallId: string): Draft => ({ type: "tool.output", turnId, payload: { toolCallId, text: "line\n" } })

const goodTurn = (turnId: string): ReadonlyArray<Draft> => [
  started(turnId),
  message(turnId),
  resolved(turnId, `${turnId}_call`, "allow"),
  toolStarted(turnId, `${turnId}_call`),
  toolCompleted(turnId, `${turnId}_call`),
  completed(turnId)
]

describe("the engine's invariants, checked on a whole log", () => {
  it("a log that keeps them passes, also one whose tool a dead process never completed", () => {
    expect(invariantProblem(logOf([created, ...goodTurn("turn_1"), ...goodTurn("turn_2")]))).toBeUndefined()
    const crashed: Draft = { type: "turn.completed", turnId: "turn_1", payload: { stopReason: "error", errorCode: "interrupted" } }
    expect(invariantProblem(logOf([created, started("turn_1"), resolved("turn_1", "c", "allow"), toolStarted("turn_1", "c"), crashed]))).toBeUndefined()
    const streamed = [started("t"), resolved("t", "c", "allow"), toolStarted("t", "c"), toolOutput("t", "c"), toolOutput("t", "c"), toolCompleted("t", "c"), completed("t")]
    expect(invariantProblem(logOf([created, ...streamed]))).toBeUndefined()
  })

  it("names the first violation and where it is", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<Draft>, number, string]> = [
      [[created, started("t"), toolStarted("t", "c"), completed("t")], 2, "tool.started for call c without an earlier permission.resolved allowing it"],
      [[created, started("t"), resolved("t", "c", "deny"), toolStarted("t", "c"), completed("t")], 3, "tool.started for call c without"],
      [[created, started("t"), message("t")], 1, "turn t is never closed (no turn.completed)"],
      [[created, ...goodTurn("t"), message("t")], 7, "user.message of turn t after its turn.completed"],
      [[created, ...goodTurn("t"), completed("t")], 7, "turn.completed of turn t after its turn.completed"],
      [[created, started("a"), started("b")], 2, "turn b starts while turn a is open"],
      [[created, ...goodTurn("t"), started("t")], 7, "turn t starts a second time"],
      [[created, message("ghost")], 1, "user.message of turn ghost, which never started"],
      [[created, started("a"), message("b")], 2, "user.message of turn b while turn a is open"],
      [[created, created], 1, "a second session.created"],
      [[created, started("t"), resolved("t", "c", "allow"), toolOutput("t", "c"), completed("t")], 3, "tool.output for call c, which is not running"],
      [[created, ...goodTurn("t").slice(0, -1), toolOutput("t", "t_call"), completed("t")], 6, "tool.output for call t_call, which is not running"]
    ]
    for (const [drafts, index, text] of cases) {
      const problem = invariantProblem(logOf(drafts))
      expect(problem?.index, text).toBe(index)
      expect(problem?.message, text).toContain(text)
    }
  })

  it("what no store can hold is the structural check's: gaps, other sessions, a bad session id, no header", () => {
    const log = logOf([created, ...goodTurn("t")])
    expect(sessionLogProblem([...log.slice(0, 3), ...log.slice(4)])).toEqual({ index: 3, message: "expected sequence 4, found 5" })
    expect(sessionLogProblem(logOf([created, ...goodTurn("t")], "../../x"))?.message).toContain('invalid session id "../../x"')
    expect(sessionLogProblem(log.slice(1))?.message).toContain("must start with session.created")
    const [first, second] = log
    if (first === undefined || second === undefined) throw new Error("the log is too short")
    expect(sessionLogProblem([first, { ...second, sessionId: "ses_2" }])?.message).toContain("session ses_2")
  })

  it("planImport: refuses a broken log, or with unverified writes it with the first violation in its header only", () => {
    const good = logOf([created, ...goodTurn("t")])
    expect(planImport(good, { unverified: false })).toEqual({ _tag: "Write", events: good, unverified: undefined })
    const broken = logOf([created, started("t"), toolStarted("t", "c"), completed("t")])
    expect(planImport(broken, { unverified: false })).toMatchObject({ _tag: "Refused", problem: { index: 2 } })
    const plan = planImport(broken, { unverified: true })
    expect(plan._tag).toBe("Write")
    if (plan._tag !== "Write") return
    expect(plan.events[0]).toEqual({
      ...broken[0],
      payload: { cwd: "/w", client: "test", unverifiedImport: { problem: "event 3: tool.started for call c without an earlier permission.resolved allowing it" } }
    })
    expect(plan.events.slice(1)).toEqual(broken.slice(1))
    // No flag makes a log no store can hold importable.
    expect(planImport(logOf([created], "../x"), { unverified: true })._tag).toBe("Refused")
  })

  it("the golden transcript keeps them", () => {
    const transcript = readFileSync(resolve(import.meta.dirname, "../fixtures/golden/edit-and-check/transcript.jsonl"), "utf8")
    expect(invariantProblem(parseEventLines(transcript))).toBeUndefined()
  })

  it.live("logs the engine writes keep them: tools allowed, denied, unknown, a failure, a cancel", () => {
    const cwd = realpathSync(mkdtempSync(join(tmpdir(), "invariants-")))
    writeFileSync(join(cwd, "notes.txt"), "alpha\n")
    const script = {
      responses: [
        { chunks: [{ text: "look" }, { toolCall: { id: "c1", name: "read_file", input: { path: "notes.txt" } } }, { toolCall: { id: "c2", name: "teleport", input: {} } }] },
        { chunks: [{ toolCall: { id: "c3", name: "write_file", input: { path: "out.txt", content: "x" } } }] },
        { chunks: [{ text: "done" }] },
        { chunks: [{ text: "part" }], failAfter: 1 },
        { chunks: [{ toolCall: { id: "c4", name: "write_file", input: { path: "out.txt", content: "y" } } }] }
      ]
    }
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      const sessionId = header.sessionId
      yield* Stream.runDrain(engine.runTurn({ sessionId, content: "one" }))
      yield* Stream.runDrain(engine.runTurn({ sessionId, content: "two" }))
      // The last question waits: cancelling the turn closes it.
      yield* engine.runTurn({ sessionId, content: "three" }).pipe(
        Stream.tap((event) => (event.type === "permission.requested" ? Effect.fork(engine.cancelTurn(sessionId)) : Effect.void)),
        Stream.runDrain
      )
      const log = yield* replayAll(sessionId)
      expect(log.filter((e) => e.type === "turn.completed")).toHaveLength(3)
      expect(log.some((e) => e.type === "tool.started")).toBe(true)
      expect(invariantProblem(log)).toBeUndefined()
    }).pipe(
      Effect.provide(engineLayer(MemoryStore.layer, script, { tools: localTools(sandboxOff), answers: [{ decision: "deny", scope: "once", by: "user" }, "wait"] })),
      Effect.ensuring(Effect.sync(() => rmSync(cwd, { recursive: true, force: true })))
    )
  })
})
