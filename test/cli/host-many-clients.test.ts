import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Layer, Option, Stream } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { AgentEvent } from "../../src/domain/events.js"
import { AgentClient } from "../../src/rpc/client.js"
import { socketClientLayer } from "../../src/rpc/socket-client.js"
import { runCli } from "../support/cli.js"
import { makeTemp } from "../support/temp-dirs.js"

/**
 * Twenty clients on one data directory's local host, over ten sessions: each client has its own
 * connection to the host's socket, follows one session from its start and prompts it while the
 * session's other client does the same. Nothing is lost or doubled: every session holds each of
 * its two prompts once, each in a turn of its own, and every client saw every event of its
 * session once, in order, the same as the session's other client.
 */

const temps = makeTemp()
afterAll(temps.cleanup)

const SESSIONS = 10
const CLIENTS = 20

describe("the local host under many clients", () => {
  it("20 clients over 10 sessions: every prompt lands once, every client sees every event once and in order", { timeout: 180_000 }, async () => {
    const cwd = temps.dir("many-workspace-")
    const home = temps.dir("many-home-")
    // A short delay keeps a turn running while the session's other prompt arrives.
    const responses = Array.from({ length: CLIENTS }, (_, i) => ({ chunks: [{ text: `answer ${i}` }], delayMs: 50 }))
    writeFileSync(join(cwd, "script.json"), JSON.stringify({ responses }))
    const env = { CUSTOM_AGENT_HOME: home, CUSTOM_AGENT_CONFIG_HOME: join(home, "config") }
    const cli = (args: ReadonlyArray<string>) => runCli(args, { cwd, env, timeoutMs: 60_000 })
    try {
      const started = await cli(["host", "start", "--script", "script.json"])
      expect(started.code, started.stderr).toBe(0)
      const token = readFileSync(join(home, "server-token"), "utf8").trim()
      // Each client its own connection to the socket, as separate processes have.
      const asClient = <A, E>(use: Effect.Effect<A, E, AgentClient>) =>
        use.pipe(Effect.provide(Layer.fresh(socketClientLayer({ path: join(home, "host.sock"), token }))), Effect.scoped)

      const sessionIds = await Effect.runPromise(
        asClient(
          Effect.gen(function* () {
            const api = yield* AgentClient
            const views = yield* Effect.forEach(Array.from({ length: SESSIONS }), (_, i) => api.CreateSession({ cwd, client: "test", title: `session ${i}` }))
            return views.map((view) => view.sessionId)
          })
        )
      )

      /** Client `i`: follows its session from the start until both its turns ended, prompting it meanwhile. */
      const clientRun = (i: number) =>
        asClient(
          Effect.gen(function* () {
            const api = yield* AgentClient
            const sessionId = sessionIds[i % SESSIONS] ?? ""
            let ended = 0
            const follower = yield* api.Subscribe({ sessionId, afterSequence: 0 }).pipe(
              Stream.filterMap((frame) => (frame._tag === "Event" ? Option.some(frame.event) : Option.none())),
              Stream.takeUntil((event) => event.type === "turn.completed" && ++ended === 2),
              Stream.runCollect,
              Effect.fork
            )
            const receipt = yield* api.Prompt({ sessionId, content: `prompt from client ${i}`, requestId: `request-${i}` })
            const seen: ReadonlyArray<AgentEvent> = Chunk.toArray(yield* Fiber.join(follower))
            return { i, sessionId, receipt, seen }
          })
        )

      const runs = await Effect.runPromise(Effect.all(Array.from({ length: CLIENTS }, (_, i) => clientRun(i)), { concurrency: "unbounded" }))

      for (const sessionId of sessionIds) {
        const mine = runs.filter((run) => run.sessionId === sessionId)
        expect(mine).toHaveLength(CLIENTS / SESSIONS)
        // One prompt started a turn, the other waited for the next: none refused, none lost.
        expect(mine.map((run) => run.receipt._tag).sort()).toEqual(["Queued", "Started"])
        for (const { seen } of mine) {
          expect(seen.map((event) => event.sequence)).toEqual(seen.map((_, k) => k + 1))
          expect(seen.filter((event) => event.type === "user.message").map((event) => event.payload.content).sort()).toEqual(
            mine.map((run) => `prompt from client ${run.i}`).sort()
          )
          const turns = seen.filter((event) => event.type === "turn.completed")
          expect(turns.map((event) => event.payload.stopReason)).toEqual(["final", "final"])
          expect(new Set(turns.map((event) => event.turnId)).size).toBe(2)
        }
        // Both clients saw the same log.
        const [first, second] = mine
        expect(second?.seen.map((event) => event.id)).toEqual(first?.seen.map((event) => event.id))
      }
    } finally {
      await cli(["host", "stop", "--now"])
    }
  })
})
