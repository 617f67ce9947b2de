import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Option, Stream } from "effect"
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, postRaw, testClientLayer } from "../support/rpc-test-client.js"

/**
 * The session log says who did what: a mode change, an answer to a permission question, a
 * rename. Over the HTTP API anyone holding the token is a client; the request body named the
 * actor (`by: "cli"`, `client: "cli"`), so a network change was recorded as made at the local
 * terminal and an audit could not tell. The transport now records its own origin (`rpc`,
 * `rpc:<what the client said>`), whatever the body claims.
 */

const token = "test-token-rpc-origin-0123456789"
const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const web = makeWebRoot()
afterAll(web.remove)

const E2E = testClientLayer(token).pipe(
  Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1" })),
  Layer.provide(
    hostTestLayer(MemoryStore.layer, { responses: [{ chunks: [{ toolCall: { name: "write_file", input: { path: "x.txt", content: "x" } } }] }, "ok"] }, { tools: localTools(sandboxOff) })
  ),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

const exported = (sessionId: string) =>
  Effect.flatMap(AgentClient, (client) => Stream.runCollect(client.ExportSession({ sessionId }))).pipe(Effect.map((events): ReadonlyArray<AgentEvent> => Chunk.toArray(events)))

/** Every actor the log records, by event type. */
const actors = (events: ReadonlyArray<AgentEvent>) =>
  events.flatMap((event): ReadonlyArray<readonly [string, string | undefined]> => {
    switch (event.type) {
      case "session.created":
        return [[event.type, event.payload.client]]
      case "session.mode_changed":
      case "session.model_changed":
      case "session.renamed":
      case "session.archived":
        return [[event.type, event.payload.by]]
      case "permission.resolved":
        return [[event.type, event.payload.client]]
      default:
        return []
    }
  })

layer(E2E, { timeout: 30_000, excludeTestServices: true })("security: an API client cannot pass for the local CLI in the session log", (it) => {
  it.effect("SetMode, SetModel, Rename and Archive claiming `cli` in the body are recorded as the API's", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const { sessionId } = yield* client.CreateSession({ cwd: "/work", client: "cli" })
      // Raw requests, past the typed client: the body says what an attacker wants it to.
      yield* postRaw(token, "SetMode", { sessionId, mode: "bypass", by: "cli" })
      yield* postRaw(token, "SetModel", { sessionId, model: "anthropic", by: "cli" })
      yield* postRaw(token, "RenameSession", { sessionId, title: "renamed", by: "cli" })
      yield* postRaw(token, "ArchiveSession", { sessionId, archived: true, by: "cli" })
      yield* postRaw(token, "SetMode", { sessionId, mode: "plan" })
      const recorded = actors(yield* exported(sessionId))
      expect(recorded).toEqual([
        ["session.created", "rpc:cli"],
        ["session.mode_changed", "rpc:cli"],
        ["session.model_changed", "rpc:cli"],
        ["session.renamed", "rpc:cli"],
        ["session.archived", "rpc:cli"],
        ["session.mode_changed", "rpc"]
      ])
      for (const [type, by] of recorded) expect(by, type).toMatch(/^rpc(:|$)/)
    }))

  it.effect("a prompt's mode change and a permission answer claiming `cli` are recorded as the API's", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const cwd = realpathSync(mkdtempSync(join(tmpdir(), "rpc-origin-")))
      dirs.push(cwd)
      const { sessionId } = yield* client.CreateSession({ cwd })
      const watching = yield* client.Subscribe({ sessionId, afterSequence: 0 }).pipe(
        Stream.filterMap((frame) => (frame._tag === "Event" ? Option.some(frame.event) : Option.none())),
        Stream.tap((event) =>
          event.type === "permission.requested"
            ? postRaw(token, "RespondPermission", {
                sessionId,
                toolCallId: event.payload.toolCallId,
                answer: { decision: "allow", scope: "once", by: "user", client: "cli" }
              })
            : Effect.void
        ),
        Stream.takeUntil((event) => event.type === "turn.completed"),
        Stream.runDrain,
        Effect.fork
      )
      yield* postRaw(token, "Prompt", { sessionId, content: "write it", permissionMode: "default", client: "cli" })
      yield* client.SetMode({ sessionId, mode: "accept-edits", by: "cli" })
      yield* watching.await
      const recorded = actors(yield* exported(sessionId))
      expect(recorded).toContainEqual(["permission.resolved", "rpc:cli"])
      expect(recorded).toContainEqual(["session.mode_changed", "rpc:cli"])
      // Every actor is the API (or the engine itself: the title it gives an untitled session).
      for (const [type, by] of recorded) expect(by, type).toMatch(/^(rpc(:|$)|auto$)/)
    }))
})
