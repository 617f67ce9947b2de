import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { withContextBlocks } from "../../src/domain/attached-blocks.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as CommandFolders from "../../src/layers/commands/folders.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { hostTestLayer, untilTurnsDone } from "../support/host-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

describe("the blocks a prompt declares attached, through the host", () => {
  it.live("are recorded on its user.message as sent; a slash command's body (another content) records none", () => {
    const cwd = temp.dir("attached-ws-")
    mkdirSync(join(cwd, ".claude", "commands"), { recursive: true })
    writeFileSync(join(cwd, ".claude", "commands", "hi.md"), "Say hi.")
    const layer = hostTestLayer(MemoryStore.layer, { responses: ["Read it.", "Hi."] }, { commands: CommandFolders.layer({ configDir: temp.dir("attached-config-"), claudeDir: temp.dir("attached-claude-") }) })
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const prompt = withContextBlocks("look at @a.txt", [{ uri: "file:///w/a.txt", text: "alpha" }])
      const watcher = yield* untilTurnsDone(host.subscribe(sessionId, 0), 2).pipe(Effect.fork)
      yield* host.prompt({ sessionId, content: prompt.content, attached: prompt.attached })
      yield* host.prompt({ sessionId, content: "/hi", attached: [{ uri: "file:///w/a.txt", start: 0, end: 3 }] })
      yield* Fiber.join(watcher)
      const messages = eventsOf(yield* replayAll(sessionId), "user.message").map((event) => event.payload)
      expect(messages[0]).toEqual({ content: prompt.content, mode: "queue", attached: prompt.attached })
      expect(messages[1]?.content).toBe("Say hi.")
      expect(messages[1]?.attached).toBeUndefined()
    }).pipe(Effect.provide(layer))
  })
})
