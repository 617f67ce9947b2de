import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Option, Stream } from "effect"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, testClientLayer } from "../support/rpc-test-client.js"

const token = "test-token-mode-0123456789"
const dirs: Array<string> = []
const tempDir = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const web = makeWebRoot()
const webRoot = web.dir
afterAll(web.remove)

const ClientLive = testClientLayer(token)

const write = (path: string) => ({ chunks: [{ toolCall: { name: "write_file", input: { path, content: "x" } } }] })

const E2E = ClientLive.pipe(
  Layer.provideMerge(serverLayer({ token, webRoot, boundHost: "127.0.0.1" })),
  Layer.provide(
    // Each session goes through the script from its start.
    hostTestLayer(MemoryStore.layer, { responses: [write("first.txt"), "ok", write("second.txt"), "ok"] }, { tools: localTools(sandboxOff) })
  ),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

/** Prompts over the API and answers its permission questions with `answer`, until the turn completes. */
const promptAnswering = (sessionId: string, payload: { readonly content: string; readonly permissionMode?: "plan" | "default"; readonly client?: string }, answer?: { readonly by?: "user" | "policy"; readonly reason?: string; readonly client?: string }) =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const view = yield* client.GetSession({ sessionId })
    const watching = yield* client.Subscribe({ sessionId, afterSequence: view.lastSequence }).pipe(
      Stream.filterMap((f) => (f._tag === "Event" ? Option.some(f.event) : Option.none())),
      Stream.tap((event) =>
        event.type === "permission.requested" && answer !== undefined
          ? client.RespondPermission({ sessionId, toolCallId: event.payload.toolCallId, answer: { decision: "allow", scope: "once", ...answer } })
          : Effect.void
      ),
      Stream.takeUntil((event) => event.type === "turn.completed"),
      Stream.runCollect,
      Effect.fork
    )
    yield* client.Prompt({ sessionId, ...payload })
    return Chunk.toArray(yield* watching.await.pipe(Effect.flatten))
  })

const resolved = (events: ReadonlyArray<AgentEvent>) =>
  events.flatMap((e) =>
    e.type === "permission.resolved" ? [{ decision: e.payload.decision, by: e.payload.by, reason: e.payload.reason, client: e.payload.client }] : []
  )

layer(E2E, { timeout: 30_000, excludeTestServices: true })("the session's mode and who answered, over the RPC API", (it) => {
  it.effect("RespondPermission records a policy's answer as the policy's, a person's as the user's", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const cwd = tempDir("rpc-answers-")
      const { sessionId } = yield* client.CreateSession({ cwd })
      const byPolicy = yield* promptAnswering(sessionId, { content: "write one" }, { by: "policy", reason: "--approve allow-edits" })
      expect(resolved(byPolicy)).toEqual([{ decision: "allow", by: "policy", reason: "--approve allow-edits", client: "rpc" }])
      // An answer claiming to come from the local CLI is recorded as the API's.
      const byPerson = yield* promptAnswering(sessionId, { content: "write another" }, { client: "cli" })
      expect(resolved(byPerson)).toEqual([{ decision: "allow", by: "user", reason: undefined, client: "rpc:cli" }])
      expect(readFileSync(join(cwd, "first.txt"), "utf8")).toBe("x")
      expect(readFileSync(join(cwd, "second.txt"), "utf8")).toBe("x")
    }))

  it.effect("SetMode is durable and recorded with who set it; a prompt without a mode runs under it", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const cwd = tempDir("rpc-mode-")
      const { sessionId, permissionMode } = yield* client.CreateSession({ cwd })
      expect(permissionMode).toBe("default")
      yield* client.SetMode({ sessionId, mode: "plan" })
      expect((yield* client.GetSession({ sessionId })).permissionMode).toBe("plan")
      const events = yield* promptAnswering(sessionId, { content: "write it" }, { by: "user" })
      expect(events.find((e) => e.type === "turn.started")?.payload).toMatchObject({ permissionMode: "plan" })
      expect(resolved(events)).toEqual([{ decision: "deny", by: "mode", reason: expect.any(String), client: undefined }])
      expect(existsSync(join(cwd, "first.txt"))).toBe(false)

      // A prompt naming another mode makes it the session's, recorded as its client's change.
      const normal = yield* promptAnswering(sessionId, { content: "back to normal", permissionMode: "default", client: "cli" }, { by: "user" })
      expect(resolved(normal)).toEqual([{ decision: "allow", by: "user", reason: undefined, client: "rpc" }])
      expect(readFileSync(join(cwd, "second.txt"), "utf8")).toBe("x")
      yield* client.SetMode({ sessionId, mode: "default", by: "web" })
      const log = Chunk.toArray(yield* Stream.runCollect(client.ExportSession({ sessionId })))
      expect(log.flatMap((e) => (e.type === "session.mode_changed" ? [e.payload] : []))).toEqual([
        { mode: "plan", by: "rpc" },
        // The request said `cli`; the transport records that it came over the API.
        { mode: "default", by: "rpc:cli" }
      ])
      const unknown = yield* client.SetMode({ sessionId: "ses_nope", mode: "plan" }).pipe(Effect.flip)
      expect(unknown._tag).toBe("SessionNotFound")
    }))

  it.effect("SetModel makes the model the session's at once, recorded as the API's; GetSession says it; an unknown session is refused", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const { sessionId, model } = yield* client.CreateSession({ cwd: tempDir("rpc-model-") })
      expect(model).toBe("scripted")
      yield* client.SetModel({ sessionId, model: "anthropic/claude-haiku-4-5", by: "web" })
      expect((yield* client.GetSession({ sessionId })).model).toBe("anthropic/claude-haiku-4-5")
      yield* client.SetModel({ sessionId, model: "anthropic/claude-haiku-4-5" })
      yield* client.SetModel({ sessionId, model: "scripted" })
      const log = Chunk.toArray(yield* Stream.runCollect(client.ExportSession({ sessionId })))
      expect(log.flatMap((e) => (e.type === "session.model_changed" ? [e.payload] : []))).toEqual([
        { model: "anthropic/claude-haiku-4-5", by: "rpc:web" },
        { model: "scripted", by: "rpc" }
      ])
      expect((yield* client.SetModel({ sessionId: "ses_nope", model: "scripted" }).pipe(Effect.flip))._tag).toBe("SessionNotFound")
    }))
})
