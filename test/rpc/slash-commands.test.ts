import { NodeHttpServer } from "@effect/platform-node"
import { afterAll, expect, layer } from "@effect/vitest"
import { Chunk, Effect, Layer, Option, Stream } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as CommandFolders from "../../src/layers/commands/folders.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import { AgentClient } from "../../src/rpc/client.js"
import { serverLayer } from "../../src/rpc/server.js"
import { hostTestLayer } from "../support/host-harness.js"
import { makeWebRoot, testClientLayer } from "../support/rpc-test-client.js"
import { makeTemp } from "../support/temp-dirs.js"

const token = "test-token-commands-0123456789ab"
const temp = makeTemp()
afterAll(temp.cleanup)
const web = makeWebRoot()
afterAll(web.remove)

const configDir = temp.dir("rpc-commands-config-")
const claudeDir = temp.dir("rpc-commands-claude-")
const workspace = () => {
  const cwd = temp.dir("rpc-commands-ws-")
  mkdirSync(join(cwd, ".claude", "commands", "team"), { recursive: true })
  writeFileSync(join(cwd, ".claude", "commands", "team", "greet.md"), "---\ndescription: Greet someone\nargument-hint: <name>\n---\nSay hello to $1.\n")
  writeFileSync(join(cwd, ".claude", "commands", "broken.md"), "---\ndescription: never closed\n")
  return cwd
}

const E2E = testClientLayer(token).pipe(
  Layer.provideMerge(serverLayer({ token, webRoot: web.dir, boundHost: "127.0.0.1" })),
  Layer.provide(hostTestLayer(MemoryStore.layer, { responses: ["Hello."] }, { commands: CommandFolders.layer({ configDir, claudeDir }) })),
  Layer.provideMerge(NodeHttpServer.layerTest)
)

layer(E2E, { timeout: 30_000, excludeTestServices: true })("slash commands over the RPC API", (it) => {
  it.effect("ListCommands gives name, description, hint, source and file, by session or by folder, with the files that cannot be used", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const cwd = workspace()
      const byFolder = yield* client.ListCommands({ cwd })
      const { sessionId } = yield* client.CreateSession({ cwd })
      const bySession = yield* client.ListCommands({ sessionId })
      expect(bySession).toEqual(byFolder)
      expect(bySession.commands).toEqual([
        {
          name: "greet",
          description: "Greet someone",
          argumentHint: "<name>",
          namespace: "team",
          source: "project",
          path: join(cwd, ".claude/commands/team/greet.md")
        }
      ])
      expect(bySession.problems).toEqual([{ path: join(cwd, ".claude/commands/broken.md"), message: 'the front matter is not closed by a "---" line' }])
    }))

  it.effect("a Prompt of `/name args` runs the command; the log names it", () =>
    Effect.gen(function* () {
      const client = yield* AgentClient
      const cwd = workspace()
      const { sessionId } = yield* client.CreateSession({ cwd })
      const watching = yield* client.Subscribe({ sessionId, afterSequence: 0 }).pipe(
        Stream.filterMap((f) => (f._tag === "Event" ? Option.some(f.event) : Option.none())),
        Stream.takeUntil((event) => event.type === "turn.completed"),
        Stream.runCollect,
        Effect.fork
      )
      yield* client.Prompt({ sessionId, content: "/greet Ada" })
      const events = Chunk.toArray(yield* watching.await.pipe(Effect.flatten))
      const message = events.find((event) => event.type === "user.message")
      expect(message?.type === "user.message" ? message.payload : undefined).toEqual({
        content: "Say hello to Ada.",
        mode: "queue",
        command: { name: "greet", arguments: "Ada", source: "project", path: join(cwd, ".claude/commands/team/greet.md") }
      })
    }))
})
