import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Option, Stream } from "effect"
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import type { PermissionAnswer } from "../../src/domain/host.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { localTools } from "../../src/layers/tools/local.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, testClientLayer } from "../support/rpc-test-client.js"

const token = "test-token-remembered-0123456789"
const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const web = makeWebRoot()
afterAll(web.remove)

const write = { chunks: [{ toolCall: { name: "write_file", input: { path: "a.txt", content: "x" } } }] }

const E2E = testClientLayer(token).pipe(
  Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1" })),
  Layer.provide(hostTestLayer(MemoryStore.layer, { responses: [write, "ok", write, "ok", write, "ok"] }, { tools: localTools(sandboxOff) })),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

/** One turn over the API, each question answered with `answer`; its events. */
const turn = (sessionId: string, answer: PermissionAnswer) =>
  Effect.gen(function* () {
    const client = yield* AgentClient
    const view = yield* client.GetSession({ sessionId })
    const watching = yield* client.Subscribe({ sessionId, afterSequence: view.lastSequence }).pipe(
      Stream.filterMap((f) => (f._tag === "Event" ? Option.some(f.event) : Option.none())),
      Stream.tap((event) =>
        event.type === "permission.requested" ? client.RespondPermission({ sessionId, toolCallId: event.payload.toolCallId, answer }) : Effect.void
      ),
      Stream.takeUntil((event) => event.type === "turn.completed"),
      Stream.runCollect,
      Effect.fork
    )
    yield* client.Prompt({ sessionId, content: "write a.txt" })
    return Chunk.toArray(yield* watching.await.pipe(Effect.flatten))
  })

const ofType = <T extends AgentEvent["type"]>(events: ReadonlyArray<AgentEvent>, type: T) =>
  events.flatMap((e) => (e.type === type ? [e as Extract<AgentEvent, { type: T }>] : []))

layer(E2E, { timeout: 30_000, excludeTestServices: true })("remembered answers over the RPC API", (it) => {
  it.effect("the question shows the cover, the answer names what it stored; List shows it and Revoke forgets only it", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), "rpc-remembered-")))
      dirs.push(cwd)
      const { sessionId } = yield* client.CreateSession({ cwd })

      const first = yield* turn(sessionId, { decision: "deny", scope: "always" })
      expect(ofType(first, "permission.requested")[0]?.payload.lasting).toEqual({ tool: "write_file", paths: ["a.txt"], access: "write" })
      const stored = ofType(first, "permission.resolved")[0]?.payload.remembered
      expect(stored).toMatchObject({ tool: "write_file", paths: ["a.txt"], access: "write" })
      const id = stored?.id ?? ""

      const listed = yield* client.ListRememberedAnswers({ workspaceRoot: cwd })
      expect(listed).toEqual([expect.objectContaining({ id, decision: "deny", scope: "always", workspaceRoot: cwd, paths: ["a.txt"] })])
      expect(yield* client.ListRememberedAnswers({ workspaceRoot: join(cwd, "other") })).toEqual([])

      // Held: the next write is denied without a question.
      const second = yield* turn(sessionId, { decision: "allow", scope: "once" })
      expect(ofType(second, "permission.requested")).toHaveLength(0)
      expect(ofType(second, "permission.resolved")[0]?.payload).toMatchObject({ decision: "deny", by: "remembered", rule: { id } })

      const unknown = yield* Effect.flip(client.RevokeRememberedAnswer({ id: `${id}x`, by: "web" }))
      expect(unknown._tag).toBe("RememberedAnswerNotFound")
      expect(yield* client.RevokeRememberedAnswer({ id, by: "web" })).toMatchObject({ id, decision: "deny" })
      expect(yield* client.ListRememberedAnswers({ workspaceRoot: cwd })).toEqual([])

      // Revoked: asked again.
      const third = yield* turn(sessionId, { decision: "allow", scope: "once" })
      expect(ofType(third, "permission.requested")).toHaveLength(1)
      expect(ofType(third, "permission.resolved")[0]?.payload).toMatchObject({ decision: "allow", by: "user" })
    })
  )
})
