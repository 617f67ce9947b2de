import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, FastCheck, Stream } from "effect"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { PermissionMode } from "../../src/domain/permissions.js"
import type { ScriptedAnswer } from "../../src/layers/approvals/scripted.js"
import type { Script } from "../../src/layers/model/scripted.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { engineLayer, replayAll } from "../support/engine-harness.js"
import { storeCases } from "../support/store-cases.js"

const workspaces: Array<string> = []
afterAll(() => {
  for (const dir of workspaces) rmSync(dir, { recursive: true, force: true })
})

/** Tool calls a model might make: good, failing, refused, unknown, malformed. */
const toolCall = FastCheck.constantFrom(
  { name: "read_file", input: { path: "notes.txt" } },
  { name: "read_file", input: { path: "missing.txt" } },
  { name: "read_file", input: { path: "../outside.txt" } },
  { name: "list_files", input: {} },
  { name: "write_file", input: { path: "out.txt", content: "x" } },
  { name: "edit_file", input: { path: "notes.txt", old_string: "alpha", new_string: "beta" } },
  { name: "shell", input: { command: "true" } },
  { name: "shell", input: { command: "exit 3" } },
  { name: "teleport", input: {} },
  { name: "read_file", input: { nope: 1 } }
)

const response = FastCheck.record({
  text: FastCheck.array(FastCheck.constantFrom("a", "b ", "c\n"), { maxLength: 3 }),
  calls: FastCheck.array(toolCall, { maxLength: 3 }),
  /** Provider failure after this many chunks. */
  failAfter: FastCheck.option(FastCheck.integer({ min: 0, max: 4 }), { nil: undefined })
})

const answer: FastCheck.Arbitrary<ScriptedAnswer> = FastCheck.constantFrom<ScriptedAnswer>(
  { decision: "allow", scope: "once", by: "user" },
  { decision: "allow", scope: "session", by: "user" },
  { decision: "deny", scope: "once", by: "user" },
  { decision: "deny", scope: "session", by: "user" },
  "wait"
)

const rule = FastCheck.record({
  tool: FastCheck.constantFrom("shell", "write_file", "edit_file", "read_file", "*"),
  decision: FastCheck.constantFrom("allow", "deny", "ask")
})

const plan = {
  responses: FastCheck.array(response, { minLength: 1, maxLength: 4 }),
  answers: FastCheck.array(answer, { maxLength: 6 }),
  rules: FastCheck.array(rule, { maxLength: 3 }),
  mode: FastCheck.constantFrom<PermissionMode>("default", "plan", "accept-edits", "bypass"),
  /** Cancel when this many events were emitted (a "wait" answer is only ever ended by this). */
  cancelAt: FastCheck.integer({ min: 1, max: 40 }),
  turns: FastCheck.integer({ min: 1, max: 2 })
}

type PlannedResponse = typeof response extends FastCheck.Arbitrary<infer R> ? R : never

const scriptOf = (responses: ReadonlyArray<PlannedResponse>): Script => ({
  responses: responses.map((r, i) => ({
    chunks: [
      ...r.text.map((text) => ({ text })),
      ...r.calls.map((call, j) => ({ toolCall: { ...call, id: `call_${i}_${j}` } }))
    ],
    ...(r.failAfter === undefined ? {} : { failAfter: r.failAfter })
  }))
})

/** The log's invariants, whatever happened: scripts, refusals, failures and cancels. */
const checkLog = (log: ReadonlyArray<AgentEvent>) => {
  expect(log.map((e) => e.sequence)).toEqual(log.map((_, i) => i + 1))
  const open = new Set<string>()
  const closed = new Map<string, number>()
  const allowed = new Set<string>()
  const started = new Set<string>()
  for (const event of log) {
    // No event of a turn after its turn.completed (a cancel racing a pending question included).
    if (event.turnId !== undefined) expect(closed.has(event.turnId)).toBe(false)
    switch (event.type) {
      case "turn.started":
        expect(open.size).toBe(0)
        open.add(event.turnId ?? "")
        break
      case "turn.completed":
        expect(open.has(event.turnId ?? "")).toBe(true)
        open.delete(event.turnId ?? "")
        closed.set(event.turnId ?? "", (closed.get(event.turnId ?? "") ?? 0) + 1)
        break
      case "permission.resolved":
        if (event.payload.decision === "allow") allowed.add(event.payload.toolCallId)
        break
      case "tool.started":
        // Invariant 3: no tool starts without a prior allow for that very call.
        expect(allowed.has(event.payload.toolCallId)).toBe(true)
        started.add(event.payload.toolCallId)
        break
      case "tool.completed":
        break
      default:
        break
    }
  }
  expect(open.size).toBe(0)
  for (const count of closed.values()) expect(count).toBe(1)
  for (const id of started) expect(log.some((e) => e.type === "tool.completed" && e.payload.toolCallId === id)).toBe(true)
}

for (const store of storeCases.filter((s) => s.name !== "jsonl (fail)")) {
  describe(`invariants on the ${store.name} store`, () => {
    it.live.prop(
      "over random scripts, rules, answers, failures and cancels: gap-free sequences, closed turns, permission before start, replay equals emitted",
      plan,
      ({ responses, answers, rules, mode, cancelAt, turns }) => {
        const cwd = realpathSync(mkdtempSync(join(tmpdir(), "prop-")))
        workspaces.push(cwd)
        writeFileSync(join(cwd, "notes.txt"), "alpha\n")
        mkdirSync(join(cwd, ".custom-agent"))
        writeFileSync(Permissions.projectRulesFile(cwd), JSON.stringify({ rules }))
        return Effect.gen(function* () {
          const engine = yield* SessionEngine
          const { header } = yield* engine.createSession({ cwd, client: "test" })
          const sessionId = header.sessionId
          const emitted: Array<AgentEvent> = []
          let asked = 0
          for (let turn = 0; turn < turns; turn++) {
            let seen = 0
            const exit = yield* engine
              .runTurn({ sessionId, content: `turn ${turn}`, permissionMode: mode, maxSteps: 4 })
              .pipe(
                Stream.tap((event) => {
                  emitted.push(event)
                  // A question answered "wait" stays open until the turn is cancelled: cancel it.
                  const waits = event.type === "permission.requested" && answers[asked++] === "wait"
                  return ++seen === cancelAt || waits ? Effect.asVoid(Effect.fork(engine.cancelTurn(sessionId))) : Effect.void
                }),
                Stream.runDrain,
                Effect.exit
              )
            expect(Exit.isSuccess(exit)).toBe(true)
          }
          const log = yield* replayAll(sessionId)
          expect(log.slice(1)).toEqual(emitted)
          checkLog(log)
        }).pipe(Effect.provide(engineLayer(store.fresh(), scriptOf(responses), { tools: localTools(sandboxOff), answers })))
      },
      { fastCheck: { numRuns: 50 } }
    )
  })
}
