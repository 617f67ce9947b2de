import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Schedule, Stream } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import * as SqliteStore from "../../src/layers/event-store/sqlite.js"
import { hostTestLayer } from "../support/host-harness.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "request-id-"))
  dirs.push(dir)
  return dir
}

const stores = [
  { name: "memory", layer: () => MemoryStore.layer },
  { name: "sqlite", layer: () => SqliteStore.layer({ filename: join(freshDir(), "events.db") }) }
]

/** Waits until the session has no turn running and nothing queued. */
const idle = (sessionId: string) =>
  Effect.flatMap(AgentHost, (host) =>
    host.getSession(sessionId).pipe(
      Effect.repeat({ until: (view) => !view.running && view.inbox.nextTurn.length === 0, schedule: Schedule.spaced("20 millis") }),
      Effect.timeout("10 seconds")
    )
  )

for (const store of stores) {
  describe(`a prompt's request id (${store.name} store)`, () => {
    it.live("a prompt sent twice with the same request id starts one turn and gets the same receipt", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const { sessionId } = yield* host.createSession({ cwd: "/tmp", client: "test" })
        const first = yield* host.prompt({ sessionId, content: "once", requestId: "req-1" })
        yield* idle(sessionId)
        const again = yield* host.prompt({ sessionId, content: "once", requestId: "req-1" })
        expect(again).toEqual(first)
        const other = yield* host.prompt({ sessionId, content: "twice", requestId: "req-2" })
        expect(other._tag).toBe("Started")
        yield* idle(sessionId)
        const log = [...(yield* Stream.runCollect(host.exportSession(sessionId)))]
        expect(log.filter((event) => event.type === "user.message").map((event) => event.payload)).toEqual([
          { content: "once", mode: "queue", requestId: "req-1" },
          { content: "twice", mode: "queue", requestId: "req-2" }
        ])
      }).pipe(Effect.provide(hostTestLayer(store.layer(), { responses: ["one", "two", "three"] }))))

    it.live("a queued prompt sent again gets its Queued receipt, and the message waits once", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const { sessionId } = yield* host.createSession({ cwd: "/tmp", client: "test" })
        yield* host.prompt({ sessionId, content: "busy", requestId: "req-a" })
        const queued = yield* host.prompt({ sessionId, content: "later", requestId: "req-b" })
        const again = yield* host.prompt({ sessionId, content: "later", requestId: "req-b" })
        expect(queued).toEqual({ _tag: "Queued", messageId: "req-b", mode: "queue" })
        expect(again).toEqual(queued)
        yield* idle(sessionId)
        const log = [...(yield* Stream.runCollect(host.exportSession(sessionId)))]
        expect(log.filter((event) => event.type === "user.message").map((event) => event.payload.content)).toEqual(["busy", "later"])
      }).pipe(Effect.provide(hostTestLayer(store.layer(), { responses: [{ chunks: [{ text: "slow" }], delayMs: 300 }, "fast", "spare"] }))))
  })
}
