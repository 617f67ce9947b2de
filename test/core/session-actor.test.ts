import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Option, Stream } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as SessionEngine from "../../src/core/SessionEngine.js"
import type { AgentEvent } from "../../src/domain/events.js"
import * as AgentHost from "../../src/host/AgentHost.js"
import * as Fanout from "../../src/host/fanout.js"
import * as PendingAsks from "../../src/host/pending-asks.js"
import { builtInContext } from "../../src/layers/context/static.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import * as SqliteStore from "../../src/layers/event-store/sqlite.js"
import { IdsDeterministic } from "../../src/layers/ids.js"
import { noMemoryStore } from "../../src/layers/memory/none.js"
import * as Scripted from "../../src/layers/model/scripted.js"
import * as Permissions from "../../src/layers/permission/engine.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { LocalFilesLive } from "../../src/layers/tools/local-file-access.js"
import { noHooks } from "../../src/layers/hooks/none.js"
import * as Mcp from "../../src/layers/tools/mcp.js"
import * as Router from "../../src/layers/tools/router.js"
import { EventStore } from "../../src/services/EventStore.js"
import { McpHub } from "../../src/services/McpHub.js"
import { ToolRouter } from "../../src/services/ToolRouter.js"
import { engineLayer } from "../support/engine-harness.js"
import { awaitPids, isRunning } from "../support/process-check.js"
import { tempDir, testServer } from "../support/mcp-fixtures.js"

const IDLE_MS = 150

/** A host whose sessions are evicted after IDLE_MS, with the real MCP hub as its only tools. */
const hostLayer = (dir: string, script: Scripted.Script) =>
  AgentHost.layer.pipe(
    Layer.provideMerge(SessionEngine.layer({ ...SessionEngine.defaultEngineOptions, sessionIdleMs: IDLE_MS })),
    Layer.provideMerge(
      Layer.mergeAll(
        MemoryStore.layer,
        Scripted.layer(script),
        IdsDeterministic,
        Layer.effect(ToolRouter, Effect.map(McpHub, (mcp) => Router.make([mcp.source]))),
        Permissions.layer({ approvalsFile: join(dir, "approvals.json") }),
        LocalFilesLive,
        noHooks,
        builtInContext,
        noMemoryStore,
        PendingAsks.layer,
        Fanout.eventBusLayer
      )
    ),
    Layer.provideMerge(Layer.merge(Fanout.layer({ bufferSize: 4096 }), Mcp.layer({ userConfigDir: join(dir, "config"), sandbox: sandboxOff })))
  )

/** A workspace, and a user configuration with our test MCP server, which writes its pid to `pids`. */
const workspaceWithServer = (dir: string) => {
  const workspace = join(dir, "ws")
  mkdirSync(workspace, { recursive: true })
  mkdirSync(join(dir, "config"))
  const { name, ...server } = testServer("t", { MCP_TEST_PID_FILE: join(dir, "pids") })
  writeFileSync(join(dir, "config", "mcp.json"), JSON.stringify({ mcpServers: { [name]: server } }))
  return workspace
}

/** Follows the session until the turn ends; gives the events it saw. */
const untilTurnEnds = (sessionId: string, after: number) =>
  Effect.flatMap(AgentHost.AgentHost, (host) =>
    host.subscribe(sessionId, after).pipe(
      Stream.filterMap((frame) => (frame._tag === "Event" ? Option.some(frame.event) : Option.none())),
      Stream.takeUntil((event: AgentEvent) => event.type === "turn.completed"),
      Stream.runCollect,
      Effect.map((events) => [...events])
    )
  )

const promptAndWait = (sessionId: string, content: string) =>
  Effect.gen(function* () {
    const host = yield* AgentHost.AgentHost
    const before = (yield* host.getSession(sessionId)).lastSequence
    yield* host.prompt({ sessionId, content })
    return yield* untilTurnEnds(sessionId, before)
  })

/** Polls until `pid` has exited, running `meanwhile` at each poll; fails the test after a few seconds. */
const awaitExit = <E, R>(pid: number, meanwhile: Effect.Effect<unknown, E, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200; i++) {
      if (!isRunning(pid)) return
      yield* meanwhile
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`process ${pid} still runs`)
  })

const idleFor = (times: number) => Effect.sleep(`${IDLE_MS * times} millis`)

describe("session actors: one per live session, evicted when idle", () => {
  it.live("an idle session is evicted after its idle time: its MCP server stops, and the next call reopens it from the log", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("actor-evict-")
        const workspace = workspaceWithServer(dir)
        return yield* Effect.gen(function* () {
          const host = yield* AgentHost.AgentHost
          const { sessionId } = yield* host.createSession({ cwd: workspace, client: "test" })
          const first = yield* promptAndWait(sessionId, "hello")
          expect(first.at(-1)?.payload).toMatchObject({ stopReason: "final" })
          const [pid] = yield* awaitPids(join(dir, "pids"), 1)
          expect(pid !== undefined && isRunning(pid)).toBe(true)

          // A client listing sessions (the web page does, often) does not keep them alive.
          yield* awaitExit(pid ?? 0, host.listSessions)
          expect((yield* host.listSessions).find((s) => s.sessionId === sessionId)?.running).toBe(false)

          const second = yield* promptAndWait(sessionId, "again")
          expect(second.at(-1)?.payload).toMatchObject({ stopReason: "final" })
          const [, restarted] = yield* awaitPids(join(dir, "pids"), 2)
          expect(restarted !== undefined && restarted !== pid).toBe(true)
          const log = yield* Stream.runCollect(host.exportSession(sessionId))
          expect([...log].map((event) => event.sequence)).toEqual([...log].map((_, index) => index + 1))
          expect([...log].filter((event) => event.type === "user.message").map((event) => event.payload)).toMatchObject([
            { content: "hello" },
            { content: "again" }
          ])
        }).pipe(Effect.provide(hostLayer(dir, { responses: ["hi there", "hi again"] })))
      })
    ))

  it.live("a session with a running turn is kept past its idle time", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("actor-running-")
        const workspace = workspaceWithServer(dir)
        const script: Scripted.Script = { responses: [{ chunks: [{ toolCall: { name: "mcp__t__wait", input: {} } }] }, "stopped"] }
        return yield* Effect.gen(function* () {
          const host = yield* AgentHost.AgentHost
          const { sessionId } = yield* host.createSession({ cwd: workspace, client: "test" })
          const following = yield* Effect.fork(untilTurnEnds(sessionId, 1))
          yield* host.prompt({ sessionId, content: "wait", permissionMode: "bypass" })
          const [pid] = yield* awaitPids(join(dir, "pids"), 1)
          yield* idleFor(4)
          expect(pid !== undefined && isRunning(pid)).toBe(true)
          expect((yield* host.listSessions).find((s) => s.sessionId === sessionId)?.running).toBe(true)

          yield* host.cancel(sessionId)
          const events = yield* following.await.pipe(Effect.flatten)
          expect(events.at(-1)?.payload).toMatchObject({ stopReason: "cancelled" })
          yield* awaitExit(pid ?? 0, Effect.void)
          expect((yield* host.getSession(sessionId)).running).toBe(false)
        }).pipe(Effect.provide(hostLayer(dir, script)))
      })
    ))

  it.live("a session waiting on a permission question is kept past its idle time, and its answer is heard", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("actor-asking-")
        const workspace = workspaceWithServer(dir)
        const script: Scripted.Script = { responses: [{ chunks: [{ toolCall: { name: "mcp__t__grow", input: { name: "grown" } } }] }, "grown it"] }
        return yield* Effect.gen(function* () {
          const host = yield* AgentHost.AgentHost
          const { sessionId } = yield* host.createSession({ cwd: workspace, client: "test" })
          const following = yield* Effect.fork(untilTurnEnds(sessionId, 1))
          yield* host.prompt({ sessionId, content: "grow a tool" })
          const asked = yield* host.subscribe(sessionId, 0).pipe(
            Stream.filter((frame) => frame._tag === "Event" && frame.event.type === "permission.requested"),
            Stream.runHead
          )
          expect(asked._tag).toBe("Some")
          const [pid] = yield* awaitPids(join(dir, "pids"), 1)
          yield* idleFor(4)
          expect(pid !== undefined && isRunning(pid)).toBe(true)
          const pending = (yield* host.getSession(sessionId)).pendingPermissions
          expect(pending).toHaveLength(1)

          yield* host.respondPermission(sessionId, pending[0]?.toolCallId ?? "", { decision: "allow", scope: "once" })
          const events = yield* following.await.pipe(Effect.flatten)
          const result = events.find((event) => event.type === "tool.completed")
          expect(result?.payload).toMatchObject({ isError: false })
          expect(events.at(-1)?.payload).toMatchObject({ stopReason: "final" })
        }).pipe(Effect.provide(hostLayer(dir, script)))
      })
    ))

  it.live("servers a client gave a session (ACP's session/new) start again after it was evicted", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("actor-extra-")
        mkdirSync(join(dir, "config"))
        return yield* Effect.gen(function* () {
          const host = yield* AgentHost.AgentHost
          const hub = yield* McpHub
          const { sessionId } = yield* host.createSession({ cwd: dir, client: "test" })
          yield* hub.configureSession(sessionId, dir, [testServer("given", { MCP_TEST_PID_FILE: join(dir, "pids") })])
          yield* promptAndWait(sessionId, "one")
          const [pid] = yield* awaitPids(join(dir, "pids"), 1)
          yield* awaitExit(pid ?? 0, Effect.void)

          yield* promptAndWait(sessionId, "two")
          const pids = yield* awaitPids(join(dir, "pids"), 2)
          expect(pids).toHaveLength(2)
          expect((yield* hub.status(sessionId)).map((s) => [s.name, s.state])).toEqual([["given", "ready"]])
        }).pipe(Effect.provide(hostLayer(dir, { responses: ["first", "second"] })))
      })
    ))
})

describe("session actors: a stale actor is fenced by the store", () => {
  it.live("after another process wrote to the session, the stale actor's append is refused once; the next call reloads the log and succeeds", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const dir = yield* tempDir("actor-fence-")
        const file = join(dir, "events.db")
        const engineOn = (responses: ReadonlyArray<string>) =>
          Effect.map(Layer.build(engineLayer(SqliteStore.layer({ filename: file }), { responses })), (context) =>
            Context.get(context, SessionEngine.SessionEngine)
          )
        const here = yield* engineOn(["one", "three"])
        const elsewhere = yield* engineOn(["two"])
        const { header } = yield* here.createSession({ cwd: dir, client: "test" })
        const sessionId = header.sessionId
        yield* Stream.runDrain(here.runTurn({ sessionId, content: "first" }))
        yield* Stream.runDrain(elsewhere.runTurn({ sessionId, content: "second" }))

        const refused = yield* Effect.either(here.record(sessionId, { type: "inbox.updated", payload: { nextTurn: [], nextStep: [] } }))
        expect(refused).toMatchObject({ _tag: "Left", left: { _tag: "SequenceConflict" } })

        const third = [...(yield* Stream.runCollect(here.runTurn({ sessionId, content: "third" })))]
        expect(third.at(-1)?.payload).toMatchObject({ stopReason: "final" })
        const stored = yield* Effect.flatMap(EventStore, (store) => Stream.runCollect(store.replay(sessionId))).pipe(
          Effect.provide(SqliteStore.layer({ filename: file }))
        )
        const log = [...stored]
        expect(log.map((event) => event.sequence)).toEqual(log.map((_, index) => index + 1))
        expect(log.filter((event) => event.type === "user.message").map((event) => event.payload)).toMatchObject([
          { content: "first" },
          { content: "second" },
          { content: "third" }
        ])
      })
    ))
})
