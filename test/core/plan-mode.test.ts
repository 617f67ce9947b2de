import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Fiber, Layer, Ref, Stream } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import type { AgentEvent } from "../../src/domain/events.js"
import type { PermissionMode } from "../../src/domain/permissions.js"
import { PLAN_TOOL } from "../../src/domain/plan.js"
import * as PolicyApprovals from "../../src/layers/approvals/policy.js"
import * as ScriptedApprovals from "../../src/layers/approvals/scripted.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { Approvals } from "../../src/services/Approvals.js"
import { awaitEvent, engineLayer, replayAll, turnTypes } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const call = (name: string, input: unknown, id: string) => ({ chunks: [{ toolCall: { name, input, id } }] })
const plan = "# Plan\n\n1. Write `a.txt`.\n2. Check it."
const propose = call(PLAN_TOOL, { plan }, "call_plan")
const write = call("write_file", { path: "a.txt", content: "hi\n" }, "call_write")

/** A memory-store engine over a scripted model that records its requests; the approvals as given. */
const setup = (script: Script, approvals: Layer.Layer<Approvals>) => {
  const recording = recordingScripted(script)
  return engineLayer(MemoryStore.layer, undefined, { model: recording, tools: localTools(sandboxOff), approvals }).pipe(Layer.provideMerge(recording))
}

/** One turn in a new session at `cwd` in `mode`; the turn's events and the whole log. */
const turn = (cwd: string, mode: PermissionMode) =>
  Effect.gen(function* () {
    const engine = yield* SessionEngine
    const { header } = yield* engine.createSession({ cwd, client: "test" })
    const events = Chunk.toArray(yield* Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "add a.txt", permissionMode: mode, client: "cli" })))
    const info = yield* engine.getSession(header.sessionId)
    return { sessionId: header.sessionId, events, mode: info.mode, log: yield* replayAll(header.sessionId) }
  })

const resultOf = (events: ReadonlyArray<AgentEvent>, toolCallId: string) =>
  eventsOf(events, "tool.completed").find((e) => e.payload.toolCallId === toolCallId)?.payload

const scripted = (answers: ReadonlyArray<ScriptedApprovals.ScriptedAnswer>) =>
  Effect.runSync(Effect.map(ScriptedApprovals.make(answers), (made) => ({ layer: Layer.succeed(Approvals, made.service), asked: made.asked })))

describe("plan mode ends in a plan", () => {
  it.effect("approved in accept-edits: the mode change is the person's, the turn goes on and its write runs without a question", () => {
    const cwd = temp.dir("plan-approve-")
    const approvals = scripted([{ decision: "allow", scope: "once", by: "user", client: "cli", mode: "accept-edits" }])
    return Effect.gen(function* () {
      const { events, mode, log } = yield* turn(cwd, "plan")
      expect(turnTypes(events).filter((t) => t.startsWith("plan.") || t === "session.mode_changed" || t === "tool.completed")).toEqual([
        "session.mode_changed",
        "plan.proposed",
        "plan.resolved",
        "session.mode_changed",
        "tool.completed",
        "tool.completed"
      ])
      expect(eventsOf(events, "plan.proposed")[0]?.payload).toEqual({ toolCallId: "call_plan", plan })
      expect(eventsOf(events, "plan.resolved")[0]?.payload).toEqual({ toolCallId: "call_plan", decision: "approved", by: "user", mode: "accept-edits", client: "cli" })
      // Recorded as the answering client's change, outside any tool's say.
      expect(eventsOf(events, "session.mode_changed").map((e) => e.payload)).toEqual([
        { mode: "plan", by: "cli" },
        { mode: "accept-edits", by: "cli" }
      ])
      expect(resultOf(events, "call_plan")).toMatchObject({ isError: false })
      expect(resultOf(events, "call_plan")?.output).toContain("now in accept-edits mode")
      // The write after the approval is judged under the new mode: allowed by it, no question.
      const resolved = eventsOf(events, "permission.resolved").find((e) => e.payload.toolCallId === "call_write")
      expect(resolved?.payload).toMatchObject({ decision: "allow", by: "mode" })
      expect(eventsOf(events, "permission.requested")).toEqual([])
      expect(readFileSync(join(cwd, "a.txt"), "utf8")).toBe("hi\n")
      expect(events.at(-1)?.payload).toEqual({ stopReason: "final" })
      expect(mode).toBe("accept-edits")
      // The person was asked once, about this plan, as a question only a person answers.
      expect(approvals.asked.map((q) => ({ tool: q.tool, plan: q.plan, firm: q.firm }))).toEqual([{ tool: PLAN_TOOL, plan, firm: true }])

      // The plan tool and plan mode's instructions are offered in plan mode only; the log rebuilds every request.
      const requests = yield* Effect.flatMap(RecordedRequests, Ref.get)
      expect(requests.map((r) => r.tools.some((t) => t.name === PLAN_TOOL))).toEqual([true, false, false])
      expect(requests.map((r) => r.system.includes("# Plan mode"))).toEqual([true, false, false])
      const rebuilt = rebuildRequests(log)
      expect(Either.isRight(rebuilt)).toBe(true)
      if (Either.isRight(rebuilt)) expect(rebuilt.right.map((r) => r.system)).toEqual(requests.map((r) => r.system))
    }).pipe(Effect.provide(setup({ responses: [propose, write, "Done."] }, approvals.layer)))
  })

  it.effect("sent back with a note: the model reads the note, the session stays in plan mode and a write is still refused", () => {
    const cwd = temp.dir("plan-reject-")
    const approvals = scripted([{ decision: "deny", scope: "once", by: "user", client: "rpc:web", note: "Also update the README." }])
    return Effect.gen(function* () {
      const { events, mode } = yield* turn(cwd, "plan")
      expect(eventsOf(events, "plan.resolved")[0]?.payload).toEqual({
        toolCallId: "call_plan",
        decision: "rejected",
        by: "user",
        client: "rpc:web",
        note: "Also update the README."
      })
      expect(eventsOf(events, "session.mode_changed").map((e) => e.payload.mode)).toEqual(["plan"])
      const result = resultOf(events, "call_plan")
      expect(result?.isError).toBe(true)
      expect(result?.output).toContain("stays in plan mode")
      expect(result?.output).toContain("Also update the README.")
      expect(eventsOf(events, "permission.resolved").find((e) => e.payload.toolCallId === "call_write")?.payload).toMatchObject({ decision: "deny", by: "mode" })
      expect(existsSync(join(cwd, "a.txt"))).toBe(false)
      expect(mode).toBe("plan")
      // The next request carries the note back as the call's result, and still offers the plan tool.
      const requests = yield* Effect.flatMap(RecordedRequests, Ref.get)
      expect(JSON.stringify(requests[1]?.messages)).toContain("Also update the README.")
      expect(requests.map((r) => r.tools.some((t) => t.name === PLAN_TOOL))).toEqual([true, true, true])
    }).pipe(Effect.provide(setup({ responses: [propose, write, "I will revise it."] }, approvals.layer)))
  })

  it.effect("headless: --approve allow-all does not approve a plan, and says so to the model", () => {
    const cwd = temp.dir("plan-headless-")
    return Effect.gen(function* () {
      const { events, mode } = yield* turn(cwd, "plan")
      const resolved = eventsOf(events, "plan.resolved")[0]?.payload
      expect(resolved).toMatchObject({ toolCallId: "call_plan", decision: "rejected", by: "policy" })
      expect(resolved?.reason).toContain("never approves a plan")
      expect(resultOf(events, "call_plan")?.output).toContain("The plan was not approved: nobody can approve it here")
      expect(mode).toBe("plan")
    }).pipe(Effect.provide(setup({ responses: [propose, "Here is the plan."] }, PolicyApprovals.layer("allow-all"))))
  })

  it.effect("an Approvals adapter whose policy says yes still does not approve: only a person does", () => {
    const cwd = temp.dir("plan-policy-yes-")
    const approvals = scripted([{ decision: "allow", scope: "always", by: "policy", reason: "some policy", mode: "accept-edits" }])
    return Effect.gen(function* () {
      const { events, mode } = yield* turn(cwd, "plan")
      expect(eventsOf(events, "plan.resolved")[0]?.payload).toMatchObject({ decision: "rejected", by: "policy" })
      expect(eventsOf(events, "plan.resolved")[0]?.payload.reason).toContain("a policy cannot approve a plan")
      expect(mode).toBe("plan")
    }).pipe(Effect.provide(setup({ responses: [propose, "Here is the plan."] }, approvals.layer)))
  })

  it.effect("outside plan mode the tool is not offered, and a call to it changes nothing and asks no one", () => {
    const cwd = temp.dir("plan-default-")
    const approvals = scripted([])
    return Effect.gen(function* () {
      const { events, mode } = yield* turn(cwd, "default")
      expect(eventsOf(events, "plan.proposed")).toEqual([])
      expect(resultOf(events, "call_plan")).toMatchObject({ isError: true })
      expect(resultOf(events, "call_plan")?.output).toContain("works only in plan mode")
      expect(approvals.asked).toEqual([])
      expect(mode).toBe("default")
      const requests = yield* Effect.flatMap(RecordedRequests, Ref.get)
      expect(requests.some((r) => r.tools.some((t) => t.name === PLAN_TOOL) || r.system.includes("# Plan mode"))).toBe(false)
    }).pipe(Effect.provide(setup({ responses: [propose, "Fine."] }, approvals.layer)))
  })

  it.effect("a mode or an approval smuggled into the input makes the call invalid: nobody is asked, the mode stays", () => {
    const cwd = temp.dir("plan-smuggle-")
    const approvals = scripted([])
    const smuggled = {
      chunks: [
        { toolCall: { name: PLAN_TOOL, input: { plan, mode: "bypass" }, id: "call_mode" } },
        { toolCall: { name: PLAN_TOOL, input: { plan, approved: true }, id: "call_approved" } },
        { toolCall: { name: PLAN_TOOL, input: { plan: "   " }, id: "call_blank" } }
      ]
    }
    return Effect.gen(function* () {
      const { events, mode } = yield* turn(cwd, "plan")
      expect(eventsOf(events, "plan.proposed")).toEqual([])
      expect(resultOf(events, "call_mode")?.output).toMatch(/^Invalid input for exit_plan_mode: mode: /)
      expect(resultOf(events, "call_approved")?.output).toMatch(/^Invalid input for exit_plan_mode: approved: /)
      expect(resultOf(events, "call_blank")?.output).toContain("must not be blank")
      expect(approvals.asked).toEqual([])
      expect(mode).toBe("plan")
    }).pipe(Effect.provide(setup({ responses: [smuggled, "Fine."] }, approvals.layer)))
  })

  it.live("a cancel while the plan waits withdraws the question on the record; the session stays in plan mode", () => {
    const cwd = temp.dir("plan-cancel-")
    const approvals = scripted(["wait"])
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      const running = yield* Effect.fork(Stream.runCollect(engine.runTurn({ sessionId: header.sessionId, content: "plan it", permissionMode: "plan" })))
      yield* awaitEvent(header.sessionId, "plan.proposed")
      yield* engine.cancelTurn(header.sessionId)
      yield* Fiber.join(running)
      const log = yield* replayAll(header.sessionId)
      expect(eventsOf(log, "plan.resolved").map((e) => e.payload)).toEqual([
        { toolCallId: "call_plan", decision: "cancelled", by: "user", reason: "the turn was cancelled while waiting" }
      ])
      expect(log.at(-1)?.payload).toEqual({ stopReason: "cancelled" })
      expect((yield* engine.getSession(header.sessionId)).mode).toBe("plan")
    }).pipe(Effect.provide(setup({ responses: [propose, "never"] }, approvals.layer)))
  })
})
