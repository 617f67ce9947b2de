import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Option, Stream } from "effect"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { PermissionEngine } from "../../src/services/PermissionEngine.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, postRaw, testClientLayer } from "../support/rpc-test-client.js"
import { call, check, makeScratch } from "../layers/permission/fixture.js"

/**
 * A lasting answer ("session", "always") may remember more than the call asked, but only as far
 * as the question offered (`lastingChoices`: the paths shown, their folders' files, everything
 * under their folders; a command's prefixes as shown). The answer's chosen cover travels from
 * every client (RPC, ACP, the web page, `run`), so a client that sends a wider one is refused
 * twice over: by the host, which leaves the question waiting (AnswerNotOffered), and by the
 * PermissionEngine, which remembers nothing (CoverNotOffered). Either alone fails the cases of
 * its layer: a hostile client must never turn "allow src/a.ts" into "allow **".
 */

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const workspace = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "lasting-cover-")))
  dirs.push(dir)
  mkdirSync(join(dir, "src"))
  mkdirSync(join(dir, "lib"))
  return dir
}

const write = (path: string) => ({ chunks: [{ toolCall: { name: "write_file", input: { path, content: "pwned\n" } } }] })
const script = { responses: [write("src/a.ts"), "wrote a", write("src/b.ts"), "wrote b", write("lib/c.ts"), "wrote c"] }

const questionOf = (event: AgentEvent): Option.Option<string> => (event.type === "permission.requested" ? Option.some(event.payload.toolCallId) : Option.none())

describe("security: the PermissionEngine remembers only a cover the question offered", () => {
  const scratch = makeScratch()
  afterAll(scratch.cleanup)

  it.effect("`**`, another folder or a wider command is refused and nothing is remembered; later calls still ask", () => {
    const s = scratch.scratch()
    return Effect.gen(function* () {
      const engine = yield* PermissionEngine
      const asked = check(s.root, "write_file", call("write", { paths: [join(s.root, "src", "a.ts")] }))
      const shown = Option.getOrThrow(yield* engine.lasting(asked))
      for (const wider of [["**"], ["lib/**"], ["src/a.ts", "**"], ["src/**/*.ts"]]) {
        const refused = yield* Effect.flip(engine.remember(asked, "allow", "always", shown, { paths: wider }))
        expect(refused._tag, wider.join(" ")).toBe("CoverNotOffered")
      }
      expect(yield* engine.listRemembered({ workspaceRoot: s.root })).toEqual([])
      for (const other of ["b.txt", "lib/c.ts", "src/b.ts"]) {
        const verdict = yield* engine.decide(check(s.root, "write_file", call("write", { paths: [join(s.root, other)] })))
        expect(verdict.decision, other).toBe("ask")
      }
    }).pipe(Effect.provide(s.layer()))
  })
})

const token = "test-token-lasting-cover-0123456789"
const web = makeWebRoot()
afterAll(web.remove)

const E2E = testClientLayer(token).pipe(
  Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1" })),
  Layer.provide(hostTestLayer(MemoryStore.layer, script, { tools: localTools(sandboxOff) })),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

layer(E2E, { timeout: 30_000, excludeTestServices: true })("security: a client cannot widen a lasting answer over the API", (it) => {
  it.effect("a raw RespondPermission choosing `**` for src/a.ts is refused and the question waits; the offered src/* is stored; lib/ still asks", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const cwd = workspace()
      const { sessionId } = yield* client.CreateSession({ cwd })
      const frames = client.Subscribe({ sessionId, afterSequence: 0 }).pipe(Stream.filterMap((f) => (f._tag === "Event" ? Option.some(f.event) : Option.none())))
      const firstQuestion = yield* frames.pipe(Stream.filterMap(questionOf), Stream.take(1), Stream.runCollect, Effect.fork)
      yield* client.Prompt({ sessionId, content: "write a" })
      const toolCallId = Chunk.unsafeHead(yield* Fiber.join(firstQuestion))

      // Past the typed client: the body says what an attacker wants it to.
      for (const cover of [{ paths: ["**"] }, { paths: ["lib/**"] }, { commands: ["*"] }]) {
        const reply = yield* postRaw(token, "RespondPermission", { sessionId, toolCallId, answer: { decision: "allow", scope: "always", cover } })
        expect(reply, JSON.stringify(cover)).toContain("AnswerNotOffered")
      }
      // A chosen cover with a once answer is refused too.
      expect(yield* postRaw(token, "RespondPermission", { sessionId, toolCallId, answer: { decision: "allow", scope: "once", cover: { paths: ["src/*"] } } })).toContain("AnswerNotOffered")
      // Nothing decided: the question still waits, and nothing was remembered.
      expect((yield* client.GetSession({ sessionId })).pendingPermissions.map((q) => q.toolCallId)).toEqual([toolCallId])
      expect(yield* client.ListRememberedAnswers({ workspaceRoot: cwd })).toEqual([])

      const done = yield* frames.pipe(Stream.takeUntil((e) => e.type === "turn.completed"), Stream.runCollect, Effect.fork)
      yield* client.RespondPermission({ sessionId, toolCallId, answer: { decision: "allow", scope: "session", cover: { paths: ["src/*"] } } })
      const first = Chunk.toReadonlyArray(yield* Fiber.join(done))
      const resolved = first.find((e) => e.type === "permission.resolved")
      expect(resolved?.type === "permission.resolved" ? resolved.payload.remembered : undefined).toMatchObject({ paths: ["src/*"], access: "write" })
      expect((yield* client.ListRememberedAnswers({ workspaceRoot: cwd })).map((a) => a.paths)).toEqual([["src/*"]])

      // src/b.ts is covered by what was chosen; lib/c.ts is not, and asks.
      const before = (yield* client.GetSession({ sessionId })).lastSequence
      const later = client.Subscribe({ sessionId, afterSequence: before }).pipe(Stream.filterMap((f) => (f._tag === "Event" ? Option.some(f.event) : Option.none())))
      const second = yield* later.pipe(Stream.takeUntil((e) => e.type === "turn.completed"), Stream.runCollect, Effect.fork)
      yield* client.Prompt({ sessionId, content: "write b" })
      const b = Chunk.toReadonlyArray(yield* Fiber.join(second))
      expect(b.find((e) => e.type === "permission.resolved")?.payload).toMatchObject({ decision: "allow", by: "remembered" })
      const mid = (yield* client.GetSession({ sessionId })).lastSequence
      const third = client.Subscribe({ sessionId, afterSequence: mid }).pipe(Stream.filterMap((f) => (f._tag === "Event" ? Option.some(f.event) : Option.none())))
      const asked = yield* third.pipe(Stream.filterMap(questionOf), Stream.take(1), Stream.runCollect, Effect.fork)
      yield* client.Prompt({ sessionId, content: "write c" })
      const libQuestion = Chunk.unsafeHead(yield* Fiber.join(asked))
      yield* client.RespondPermission({ sessionId, toolCallId: libQuestion, answer: { decision: "deny", scope: "once" } })
    }))
})

describe("security: the host refuses an answer whose cover was not offered, whoever sends it", () => {
  it.effect("in this process too (ACP, run, the interactive session go through it): refused, the question waits, a proper answer settles it", () => {
    const cwd = workspace()
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const frames = host.subscribe(sessionId, 0).pipe(Stream.filterMap((f) => (f._tag === "Event" ? Option.some(f.event) : Option.none())))
      const asked = yield* frames.pipe(Stream.filterMap(questionOf), Stream.take(1), Stream.runCollect, Effect.fork)
      const done = yield* frames.pipe(Stream.takeUntil((e) => e.type === "turn.completed"), Stream.runCollect, Effect.fork)
      yield* host.prompt({ sessionId, content: "write a" })
      const toolCallId = Chunk.unsafeHead(yield* Fiber.join(asked))
      const refused = yield* Effect.flip(host.respondPermission(sessionId, toolCallId, { decision: "allow", scope: "always", cover: { paths: ["**"] }, client: "acp" }))
      expect(refused._tag).toBe("AnswerNotOffered")
      expect((yield* host.getSession(sessionId)).pendingPermissions).toHaveLength(1)
      yield* host.respondPermission(sessionId, toolCallId, { decision: "deny", scope: "always", cover: { paths: ["src/**"] } })
      const log = Chunk.toReadonlyArray(yield* Fiber.join(done))
      expect(log.find((e) => e.type === "permission.resolved")?.payload).toMatchObject({ decision: "deny", scope: "always", remembered: { paths: ["src/**"] } })
      expect(log.some((e) => e.type === "tool.started")).toBe(false)
    }).pipe(Effect.provide(hostTestLayer(MemoryStore.layer, script, { tools: localTools(sandboxOff) })))
  })
})
