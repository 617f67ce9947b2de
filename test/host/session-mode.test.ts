import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Fiber, Stream, TestClock } from "effect"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import type { HostFrame } from "../../src/domain/host.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as JsonlStore from "../../src/layers/event-store/jsonl.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { replayAll, types } from "../support/engine-harness.js"
import { hostTestLayer } from "../support/host-harness.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const tempDir = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  dirs.push(dir)
  return dir
}

const write = (path: string) => ({ chunks: [{ toolCall: { name: "write_file", input: { path, content: "x" } } }] })

/** Prompts and waits for the turn it started to complete; gives the session's whole log. */
const promptAndWait = (sessionId: string, content: string, options: { readonly permissionMode?: "default" | "plan" | "accept-edits"; readonly client?: string } = {}) =>
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

const resolvedOf = (log: ReadonlyArray<AgentEvent>) =>
  log.flatMap((e) => (e.type === "permission.resolved" ? [{ decision: e.payload.decision, by: e.payload.by }] : []))

const startedModes = (log: ReadonlyArray<AgentEvent>) => log.flatMap((e) => (e.type === "turn.started" ? [e.payload.permissionMode] : []))

describe("the session's permission mode", () => {
  it.effect("a prompt's mode is recorded before its turn; later prompts, and a new host on the same store, run under it", () => {
    const cwd = tempDir("mode-work-")
    const store = JsonlStore.layer({ directory: tempDir("mode-store-"), truncatedLastLine: "fail" })
    const earlier = Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      expect((yield* host.getSession(sessionId)).permissionMode).toBe("default")
      const first = yield* promptAndWait(sessionId, "look only", { permissionMode: "plan", client: "cli" })
      expect(types(first).slice(0, 3)).toEqual(["session.created", "session.mode_changed", "turn.started"])
      expect(first[1]?.payload).toEqual({ mode: "plan", by: "cli" })
      // No mode with the prompt: the session's holds, and nothing new is recorded.
      const second = yield* promptAndWait(sessionId, "and again")
      expect(second.filter((e) => e.type === "session.mode_changed")).toHaveLength(1)
      expect(startedModes(second)).toEqual(["plan", "plan"])
      expect(resolvedOf(second)).toEqual([
        { decision: "deny", by: "mode" },
        { decision: "deny", by: "mode" }
      ])
      expect((yield* host.getSession(sessionId)).permissionMode).toBe("plan")
      return sessionId
    }).pipe(Effect.provide(hostTestLayer(store, { responses: [write("a.txt"), "no", write("b.txt"), "no"] }, { tools: localTools(sandboxOff) })))

    const later = (sessionId: string) =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        expect((yield* host.getSession(sessionId)).permissionMode).toBe("plan")
        const log = yield* promptAndWait(sessionId, "write it now")
        expect(startedModes(log)).toEqual(["plan", "plan", "plan"])
        expect(resolvedOf(log).at(-1)).toEqual({ decision: "deny", by: "mode" })
      }).pipe(Effect.provide(hostTestLayer(store, { responses: [write("c.txt"), "no"] }, { tools: localTools(sandboxOff) })))

    return Effect.gen(function* () {
      yield* later(yield* earlier)
      for (const name of ["a.txt", "b.txt", "c.txt"]) expect(existsSync(join(cwd, name))).toBe(false)
    })
  })

  it.effect("setMode is recorded once with who set it, and a running turn checks its next call under it", () => {
    const cwd = tempDir("mode-live-")
    const script: Script = { responses: [write("first.txt"), write("second.txt"), "done"] }
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const asked = yield* Deferred.make<string>()
      const frames = yield* host.subscribe(sessionId, 0).pipe(
        Stream.tap((f) => (f._tag === "Event" && f.event.type === "permission.requested" ? Deferred.succeed(asked, f.event.payload.toolCallId) : Effect.void)),
        Stream.takeUntil((f) => f._tag === "Event" && f.event.type === "turn.completed"),
        Stream.runCollect,
        Effect.fork
      )
      yield* host.prompt({ sessionId, content: "write twice" })
      const toolCallId = yield* Deferred.await(asked)
      yield* host.setMode(sessionId, "plan", "web")
      yield* host.setMode(sessionId, "plan", "acp")
      expect((yield* host.getSession(sessionId)).permissionMode).toBe("plan")
      // The question asked before the change is still the person's to answer.
      yield* host.respondPermission(sessionId, toolCallId, { decision: "allow", scope: "once" })
      const events = Chunk.toArray(yield* Fiber.join(frames)).flatMap((f: HostFrame) => (f._tag === "Event" ? [f.event] : []))
      const changes = events.filter((e) => e.type === "session.mode_changed")
      expect(changes.map((e) => e.payload)).toEqual([{ mode: "plan", by: "web" }])
      expect(startedModes(events)).toEqual(["default"])
      expect(resolvedOf(events)).toEqual([
        { decision: "allow", by: "user" },
        { decision: "deny", by: "mode" }
      ])
      expect(readFileSync(join(cwd, "first.txt"), "utf8")).toBe("x")
      expect(existsSync(join(cwd, "second.txt"))).toBe(false)
      const missing = yield* host.setMode("ses_nope", "plan", "web").pipe(Effect.flip)
      expect(missing._tag).toBe("SessionNotFound")
    }).pipe(Effect.provide(hostTestLayer(MemoryStore.layer, script, { tools: localTools(sandboxOff) })))
  })

  it.effect("a queued prompt's mode becomes the session's at once, for the turn it starts later", () =>
    Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd: "/work", client: "test" })
      const watcher = yield* host.subscribe(sessionId, 0).pipe(
        Stream.filter((f) => f._tag === "Event" && f.event.type === "turn.completed"),
        Stream.take(2),
        Stream.runDrain,
        Effect.fork
      )
      const first = yield* host.prompt({ sessionId, content: "one" })
      const second = yield* host.prompt({ sessionId, content: "two", permissionMode: "accept-edits", client: "rpc" })
      expect([first._tag, second._tag]).toEqual(["Started", "Queued"])
      expect((yield* host.getSession(sessionId)).permissionMode).toBe("accept-edits")
      yield* TestClock.adjust("1 second")
      yield* Fiber.join(watcher)
      const log = yield* replayAll(sessionId)
      expect(startedModes(log)).toEqual(["default", "accept-edits"])
      expect(log.filter((e) => e.type === "session.mode_changed").map((e) => e.payload)).toEqual([{ mode: "accept-edits", by: "rpc" }])
    }).pipe(Effect.provide(hostTestLayer(MemoryStore.layer, { responses: [{ chunks: [{ text: "slow" }], delayMs: 50 }, "two"] }))))
})
