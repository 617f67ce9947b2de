import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Stream } from "effect"
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as JsonlStore from "../../src/layers/event-store/jsonl.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { replayAll } from "../support/engine-harness.js"
import { hostTestLayer } from "../support/host-harness.js"
import { type Ledger, newLedger, resolverLayer } from "../support/model-resolver.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const tempDir = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  dirs.push(dir)
  return dir
}

/** Prompts and waits for the turn it started to complete; gives the session's whole log. */
const promptAndWait = (sessionId: string, content: string, options: { readonly model?: string; readonly client?: string } = {}) =>
  Effect.gen(function* () {
    const host = yield* AgentHost
    const before = (yield* host.getSession(sessionId)).lastSequence
    const done = yield* host.subscribe(sessionId, before).pipe(
      Stream.takeUntil((f) => f._tag === "Event" && f.event.type === "turn.completed"),
      Stream.runDrain,
      Effect.fork
    )
    yield* host.prompt({ sessionId, content, ...options })
    yield* Fiber.join(done)
    return yield* replayAll(sessionId)
  })

const answeredBy = (log: ReadonlyArray<AgentEvent>) => log.flatMap((e) => (e.type === "model.completed" ? [e.payload.model] : []))
const modelChanges = (log: ReadonlyArray<AgentEvent>) => log.flatMap((e) => (e.type === "session.model_changed" ? [e.payload] : []))

/** A host (a process) over `store`: the engine's own model is the scripted one; the resolver plays `openai/gpt-4.1`. */
const hostOn = (store: ReturnType<typeof JsonlStore.layer>, script: Script, ledger: Ledger) =>
  hostTestLayer(store, script, { resolver: resolverLayer(script, ["openai/gpt-4.1"], ledger) })

describe("the session's model", () => {
  it.effect("is the one its log names: a later turn, and a new host on the same store, ask it; a prompt's model is recorded as a change", () => {
    const cwd = tempDir("model-work-")
    const store = JsonlStore.layer({ directory: tempDir("model-store-"), truncatedLastLine: "fail" })
    const first = newLedger()
    const second = newLedger()

    const earlier = Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId, model } = yield* host.createSession({ cwd, client: "test", model: "openai/gpt-4.1" })
      expect(model).toBe("openai/gpt-4.1")
      const log = yield* promptAndWait(sessionId, "hello")
      expect(answeredBy(log)).toEqual(["openai/gpt-4.1"])
      expect(first.requests.map((r) => r.model)).toEqual(["openai/gpt-4.1"])
      return sessionId
    }).pipe(Effect.provide(hostOn(store, { responses: ["Hi from GPT."] }, first)))

    const later = (sessionId: string) =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        expect((yield* host.getSession(sessionId)).model).toBe("openai/gpt-4.1")
        // No model with the prompt: the session's holds, nothing is recorded, the engine's own model is not asked.
        const again = yield* promptAndWait(sessionId, "and again")
        expect(answeredBy(again)).toEqual(["openai/gpt-4.1", "openai/gpt-4.1"])
        expect(modelChanges(again)).toEqual([])
        expect(second.requests.map((r) => r.model)).toEqual(["openai/gpt-4.1"])
        // A prompt naming another model makes it the session's, recorded with who changed it, before its turn.
        const changed = yield* promptAndWait(sessionId, "now offline", { model: "scripted", client: "cli" })
        expect(modelChanges(changed)).toEqual([{ model: "scripted", by: "cli" }])
        const change = changed.findIndex((e) => e.type === "session.model_changed")
        expect(changed[change + 1]?.type).toBe("turn.started")
        expect(answeredBy(changed).at(-1)).toBe("scripted")
        expect((yield* host.getSession(sessionId)).model).toBe("scripted")
        // Named again, it is no change.
        const same = yield* promptAndWait(sessionId, "still offline", { model: "scripted", client: "cli" })
        expect(modelChanges(same)).toHaveLength(1)
        expect(second.requests).toHaveLength(1)
      }).pipe(Effect.provide(hostOn(store, { responses: ["Hi again from GPT.", "Offline.", "Still offline."] }, second)))

    return Effect.flatMap(earlier, later)
  })

  it.effect("a model that cannot be used ends the turn with model_unavailable, saying why; the engine's own model does not answer instead", () => {
    const cwd = tempDir("model-work-")
    const store = JsonlStore.layer({ directory: tempDir("model-store-"), truncatedLastLine: "fail" })
    const ledger = newLedger()
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test", model: "anthropic/claude-opus-5-5" })
      const log = yield* promptAndWait(sessionId, "hello")
      expect(answeredBy(log)).toEqual([])
      const completed = log.at(-1)
      expect(completed?.type).toBe("turn.completed")
      expect(completed?.payload).toMatchObject({ stopReason: "error", errorCode: "model_unavailable" })
      expect(completed?.type === "turn.completed" ? completed.payload.message : "").toContain("anthropic/claude-opus-5-5")
      expect(ledger.asked).toEqual(["anthropic/claude-opus-5-5"])
    }).pipe(Effect.provide(hostOn(store, { responses: ["never"] }, ledger)))
  })

  it.effect("setModel records the change at once, before any prompt; the next turn asks it; a turn running meanwhile ends on the model it started with", () => {
    const cwd = tempDir("model-work-")
    const store = JsonlStore.layer({ directory: tempDir("model-store-"), truncatedLastLine: "fail" })
    const ledger = newLedger()
    const write = { chunks: [{ toolCall: { name: "write_file", input: { path: "a.txt", content: "x" } } }] }
    // The engine's model writes; the other model (a script of its own, from its start) only says hello.
    const script: Script = { responses: [write, "Wrote it."] }
    const other: Script = { responses: ["Hi from GPT."] }
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      yield* host.setModel(sessionId, { model: "openai/gpt-4.1", by: "cli" })
      expect((yield* host.getSession(sessionId)).model).toBe("openai/gpt-4.1")
      expect(modelChanges(yield* replayAll(sessionId))).toEqual([{ model: "openai/gpt-4.1", by: "cli" }])
      // The same model again is no change.
      yield* host.setModel(sessionId, { model: "openai/gpt-4.1", by: "web" })
      expect(modelChanges(yield* replayAll(sessionId))).toHaveLength(1)
      // Back to the engine's model, then a turn that waits on a question while the model changes under it.
      yield* host.setModel(sessionId, { model: "scripted", by: "cli" })
      const before = (yield* host.getSession(sessionId)).lastSequence
      const events = host.subscribe(sessionId, before).pipe(Stream.filterMap((f) => (f._tag === "Event" ? Option.some(f.event) : Option.none())))
      const asked = yield* events.pipe(Stream.filter((e) => e.type === "permission.requested"), Stream.take(1), Stream.runCollect, Effect.fork)
      const done = yield* events.pipe(Stream.takeUntil((e) => e.type === "turn.completed"), Stream.runDrain, Effect.fork)
      yield* host.prompt({ sessionId, content: "write a.txt" })
      const question = Chunk.toReadonlyArray(yield* Fiber.join(asked))[0]
      yield* host.setModel(sessionId, { model: "openai/gpt-4.1", by: "cli" })
      yield* host.respondPermission(sessionId, question?.type === "permission.requested" ? question.payload.toolCallId : "", { decision: "allow", scope: "once" })
      yield* Fiber.join(done)
      const log = yield* replayAll(sessionId)
      // Both of the running turn's steps were the engine's model; the change sits inside that turn, recorded once.
      expect(answeredBy(log)).toEqual(["scripted", "scripted"])
      expect(modelChanges(log).map((c) => c.model)).toEqual(["openai/gpt-4.1", "scripted", "openai/gpt-4.1"])
      expect(ledger.requests).toEqual([])
      const next = yield* promptAndWait(sessionId, "hello")
      expect(answeredBy(next).at(-1)).toBe("openai/gpt-4.1")
      expect(ledger.requests.map((r) => r.model)).toEqual(["openai/gpt-4.1"])
      // A session that does not exist is refused as such.
      expect((yield* Effect.flip(host.setModel("ses_nope", { model: "scripted", by: "cli" })))._tag).toBe("SessionNotFound")
    }).pipe(Effect.provide(hostTestLayer(store, script, { resolver: resolverLayer(other, ["openai/gpt-4.1"], ledger), tools: localTools(sandboxOff) })))
  })
})
