import { afterAll, describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Schedule, Stream } from "effect"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import * as SqliteStore from "../../src/layers/event-store/sqlite.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import * as McpLazy from "../../src/layers/tools/mcp-lazy.js"
import { everythingServer } from "../support/mcp-fixtures.js"
import { hostTestLayer } from "../support/host-harness.js"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
const freshDir = (prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  dirs.push(dir)
  return dir
}

/** A user configuration directory whose `mcp.json` names the reference server. */
const userWithServer = () => {
  const dir = freshDir("attach-user-")
  const { name, ...server } = everythingServer("demo")
  writeFileSync(join(dir, "mcp.json"), JSON.stringify({ mcpServers: { [name]: server } }))
  return dir
}

const stores = [
  { name: "memory", layer: () => MemoryStore.layer },
  { name: "sqlite", layer: () => SqliteStore.layer({ filename: join(freshDir("attach-db-"), "events.db") }) }
]

const document = "demo://resource/static/document/features.md"

for (const store of stores) {
  describe(`prompt attachments from the user's MCP servers (${store.name} store)`, () => {
    const layer = () =>
      hostTestLayer(store.layer(), { responses: ["read it"] }, { mcp: McpLazy.layer({ userConfigDir: userWithServer(), sandbox: sandboxOff }) })

    it.live("a new session's first prompt attaches a resource of a server in the user's mcp.json", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const cwd = freshDir("attach-ws-")
        const view = yield* host.createSession({ cwd, client: "test", attachments: [document] })
        const receipt = yield* host.prompt({ sessionId: view.sessionId, content: "summarize", attachments: [document] })
        expect(receipt._tag).toBe("Started")
        yield* host.getSession(view.sessionId).pipe(
          Effect.repeat({ until: (session) => !session.running, schedule: Schedule.spaced("20 millis") }),
          Effect.timeout("20 seconds")
        )
        const log = Chunk.toReadonlyArray(yield* Stream.runCollect(host.exportSession(view.sessionId)))
        const message = log.find((event) => event.type === "user.message")
        expect(message?.type === "user.message" ? message.payload.content : "").toContain(`<resource uri="${document}"`)
      }).pipe(Effect.provide(layer())), 60_000)

    it.live("an attachment no server serves fails before a session is created: nothing is left behind", () =>
      Effect.gen(function* () {
        const host = yield* AgentHost
        const cwd = freshDir("attach-ws-")
        const error = yield* Effect.flip(host.createSession({ cwd, client: "test", attachments: ["demo://resource/nowhere"] }))
        expect(error._tag).toBe("McpError")
        expect(yield* host.listSessions).toEqual([])
      }).pipe(Effect.provide(layer())), 60_000)
  })
}
