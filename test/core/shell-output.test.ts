import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Fiber, Layer, Ref, Stream } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import { SessionEngine } from "../../src/core/SessionEngine.js"
import { invariantProblem } from "../../src/domain/log-invariants.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { awaitEvent, engineLayer, replayAll, types } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { RecordedRequests, recordingScripted } from "../support/recording-model.js"
import { makeTemp } from "../support/temp-dirs.js"

const temps = makeTemp()
afterAll(temps.cleanup)

const shellCall = (command: string): Script => ({ responses: [{ chunks: [{ toolCall: { name: "shell", input: { command }, id: "call_sh" } }] }, "done"] })

const setup = (script: Script) => {
  const recording = recordingScripted(script)
  return engineLayer(MemoryStore.layer, undefined, { model: recording, tools: localTools(sandboxOff) }).pipe(Layer.provideMerge(recording))
}

/** A command that prints, then waits for the test to create `go` in the workspace, then prints again. */
const waitsForGo = "printf 'first line\\n'; while [ ! -e go ]; do sleep 0.02; done; printf 'second line\\n'"

describe("a shell command's output, recorded while it runs", () => {
  it.live("the log has the output printed so far while the command still runs; the result comes after, whole, and is what the model reads", () => {
    const cwd = temps.dir("shell-live-")
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      const turn = yield* engine
        .runTurn({ sessionId: header.sessionId, content: "run it", permissionMode: "bypass" })
        .pipe(Stream.runCollect, Effect.fork)
      yield* awaitEvent(header.sessionId, "tool.output")
      const during = yield* replayAll(header.sessionId)
      // The command is still waiting for `go`: its output so far is in the log, its result is not.
      expect(types(during)).not.toContain("tool.completed")
      expect(eventsOf(during, "tool.output").map((e) => e.payload)).toEqual([{ toolCallId: "call_sh", text: "first line\n" }])
      writeFileSync(join(cwd, "go"), "")
      const live = Chunk.toArray(yield* Fiber.join(turn))
      const log = yield* replayAll(header.sessionId)
      // Subscribers hear what the log holds, in its order.
      expect(live.map((e) => e.sequence)).toEqual(log.slice(1).map((e) => e.sequence))
      const callTypes = types(log).filter((t) => t.startsWith("tool."))
      expect(callTypes[0]).toBe("tool.started")
      expect(callTypes.at(-1)).toBe("tool.completed")
      expect(callTypes.slice(1, -1).every((t) => t === "tool.output")).toBe(true)
      expect(eventsOf(log, "tool.output").map((e) => e.payload.text).join("")).toMatch(/^first line\n(second line\n)?$/)
      expect(eventsOf(log, "tool.completed")[0]?.payload.output).toBe("first line\nsecond line\n\n[exit code 0]")
      expect(invariantProblem(log)).toBeUndefined()
      // The model's next request carries the result only, and the log alone rebuilds it.
      const sent = yield* Effect.flatMap(RecordedRequests, Ref.get)
      const rebuilt = Either.getOrThrow(rebuildRequests(log))
      expect(rebuilt.map((r) => r.messages)).toEqual(sent.map((r) => r.messages))
      expect(JSON.stringify(sent.at(-1)?.messages)).not.toContain("tool.output")
    }).pipe(Effect.provide(setup(shellCall(waitsForGo))))
  })

  it.live("a command that is over in a moment records no output events: its result says it all", () => {
    const cwd = temps.dir("shell-quick-")
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      yield* Stream.runDrain(engine.runTurn({ sessionId: header.sessionId, content: "run it", permissionMode: "bypass" }))
      const log = yield* replayAll(header.sessionId)
      expect(types(log)).not.toContain("tool.output")
      expect(eventsOf(log, "tool.completed")[0]?.payload.output).toBe("quick\n\n[exit code 0]")
    }).pipe(Effect.provide(setup(shellCall("echo quick"))))
  })

  it.live("a command printing far more than the budget: the log keeps its start whole and the tail, and says how much it skipped", () => {
    const cwd = temps.dir("shell-big-")
    // 200,000 bytes of numbered lines at once, then a wait: everything is pending when the first record is taken.
    const command = `seq 1 40000 | awk '{ printf "%04d\\n", $1 % 10000 }'; while [ ! -e go ]; do sleep 0.02; done`
    return Effect.gen(function* () {
      const engine = yield* SessionEngine
      const { header } = yield* engine.createSession({ cwd, client: "test" })
      const turn = yield* engine
        .runTurn({ sessionId: header.sessionId, content: "run it", permissionMode: "bypass" })
        .pipe(Stream.runDrain, Effect.fork)
      yield* awaitEvent(header.sessionId, "tool.output")
      writeFileSync(join(cwd, "go"), "")
      yield* Fiber.join(turn)
      const outputs = eventsOf(yield* replayAll(header.sessionId), "tool.output").map((e) => e.payload)
      const recorded = outputs.reduce((sum, p) => sum + Buffer.byteLength(p.text), 0)
      const skipped = outputs.reduce((sum, p) => sum + (p.skipped ?? 0), 0)
      expect(recorded + skipped).toBe(200_000)
      expect(recorded).toBeLessThanOrEqual(128 * 1024)
      expect(outputs[0]?.text.startsWith("0001\n0002\n")).toBe(true)
      expect(outputs.at(-1)?.text.endsWith("9999\n0000\n")).toBe(true)
      expect(outputs.some((p) => (p.skipped ?? 0) > 0)).toBe(true)
    }).pipe(Effect.provide(setup(shellCall(command))))
  })
})
