import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Schedule } from "effect"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { rebuildRequests } from "../../src/core/replay-requests.js"
import type { AgentEvent } from "../../src/domain/events.js"
import { AgentHost } from "../../src/host/AgentHost.js"
import * as CommandFolders from "../../src/layers/commands/folders.js"
import * as MemoryStore from "../../src/layers/event-store/memory.js"
import type { Script } from "../../src/layers/model/scripted.js"
import { sandboxOff } from "../../src/layers/sandbox/off.js"
import { localTools } from "../../src/layers/tools/local.js"
import { replayAll } from "../support/engine-harness.js"
import { eventsOf } from "../support/events.js"
import { hostTestLayer, untilTurnsDone } from "../support/host-harness.js"
import { makeTemp } from "../support/temp-dirs.js"

const temp = makeTemp()
afterAll(temp.cleanup)

const put = (root: string, files: Record<string, string>) => {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true })
    writeFileSync(join(root, name), text)
  }
}

const GREET = "---\ndescription: Greet someone\nargument-hint: <first> <last>\n---\nSay hello to $1, then to $ARGUMENTS."

/** A repository with two commands, the user's one, and a host that reads them. */
const setup = (script: Script, tools = false) => {
  const cwd = temp.dir("commands-ws-")
  const configDir = temp.dir("commands-config-")
  const claudeDir = temp.dir("commands-claude-")
  put(cwd, {
    ".git/HEAD": "ref: refs/heads/main\n",
    "a.txt": "alpha\n",
    ".claude/commands/greet.md": GREET,
    ".claude/commands/ops/deploy.md": "Deploy to $1."
  })
  put(claudeDir, { "commands/mine.md": "---\ndescription: The user's own\n---\nMine: $ARGUMENTS" })
  const layer = hostTestLayer(MemoryStore.layer, script, {
    commands: CommandFolders.layer({ configDir, claudeDir }),
    ...(tools ? { tools: localTools(sandboxOff) } : {})
  })
  return { cwd, claudeDir, layer }
}

/** The text of every user message the model was given in the session's last request, rebuilt from the log alone. */
const lastRequestTexts = (log: ReadonlyArray<AgentEvent>) =>
  (Either.getOrThrow(rebuildRequests(log)).at(-1)?.messages ?? []).flatMap((m) =>
    m.role === "user" ? m.content.flatMap((p) => (p._tag === "text" ? [p.text.trim()] : [])) : []
  )

describe("slash commands through the host", () => {
  it.live("lists a session's commands, and a folder's before any session exists there", () => {
    const { cwd, claudeDir, layer } = setup({ responses: [] })
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const byCwd = yield* host.listCommands({ cwd })
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const bySession = yield* host.listCommands({ sessionId })
      expect(bySession).toEqual(byCwd)
      expect(bySession.problems).toEqual([])
      expect(bySession.commands).toEqual([
        { name: "deploy", description: "Deploy to $1.", namespace: "ops", source: "project", path: join(cwd, ".claude/commands/ops/deploy.md") },
        {
          name: "greet",
          description: "Greet someone",
          argumentHint: "<first> <last>",
          source: "project",
          path: join(cwd, ".claude/commands/greet.md")
        },
        { name: "mine", description: "The user's own", source: "user", path: join(claudeDir, "commands/mine.md") }
      ])
      const missing = yield* Effect.flip(host.listCommands({ sessionId: "ses_missing" }))
      expect(missing._tag).toBe("SessionNotFound")
    }).pipe(Effect.provide(layer))
  })

  it.live("`/name args` is sent as the command's body with its arguments; the log keeps what was typed, and replays without the file", () => {
    const { cwd, layer } = setup({ responses: ["Hello Ada.", "Again."] })
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const watcher = yield* untilTurnsDone(host.subscribe(sessionId, 0), 1).pipe(Effect.fork)
      expect((yield* host.prompt({ sessionId, content: "/greet Ada  Lovelace " }))._tag).toBe("Started")
      yield* Fiber.join(watcher)
      const first = yield* replayAll(sessionId)
      const [message] = eventsOf(first, "user.message")
      expect(message?.payload).toEqual({
        content: "Say hello to Ada, then to Ada  Lovelace.",
        mode: "queue",
        command: { name: "greet", arguments: "Ada  Lovelace", source: "project", path: join(cwd, ".claude/commands/greet.md") }
      })
      // What the person typed names the turn and the session; the model is given the expansion.
      expect(eventsOf(first, "turn.started")[0]?.payload.promptPreview).toBe("/greet Ada Lovelace")
      expect(eventsOf(first, "session.renamed")[0]?.payload.title).toBe("/greet Ada Lovelace")
      expect(lastRequestTexts(first)).toEqual(["Say hello to Ada, then to Ada  Lovelace."])

      // The file goes, the session is loaded again from its log: the conversation still holds the expansion.
      rmSync(join(cwd, ".claude/commands/greet.md"))
      yield* host.evict(sessionId)
      const again = yield* untilTurnsDone(host.subscribe(sessionId, first.at(-1)?.sequence ?? 0), 1).pipe(Effect.fork)
      yield* host.prompt({ sessionId, content: "/greet Bob" })
      yield* Fiber.join(again)
      const second = yield* replayAll(sessionId)
      // No command of that name any more: the line is a prompt, sent as typed.
      expect(eventsOf(second, "user.message").map((e) => e.payload)).toEqual([message?.payload, { content: "/greet Bob", mode: "queue" }])
      expect(lastRequestTexts(second)).toEqual(["Say hello to Ada, then to Ada  Lovelace.", "/greet Bob"])
    }).pipe(Effect.provide(layer))
  })

  it.live("a prompt that starts with / and names no command is sent unchanged", () => {
    const { cwd, layer } = setup({ responses: ["ok", "ok", "ok"] })
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      for (const content of ["/etc/hosts is odd", "/unknown thing", "/greet"]) {
        const from = (yield* host.getSession(sessionId)).lastSequence
        const watcher = yield* untilTurnsDone(host.subscribe(sessionId, from), 1).pipe(Effect.fork)
        yield* host.prompt({ sessionId, content })
        yield* Fiber.join(watcher)
      }
      const messages = eventsOf(yield* replayAll(sessionId), "user.message").map((e) => e.payload)
      expect(messages.slice(0, 2)).toEqual([
        { content: "/etc/hosts is odd", mode: "queue" },
        { content: "/unknown thing", mode: "queue" }
      ])
      // A known command without arguments runs with empty ones.
      expect(messages[2]?.content).toBe("Say hello to , then to .")
      expect(messages[2]?.command?.arguments).toBe("")
    }).pipe(Effect.provide(layer))
  })

  it.live("a command queued for the next turn, or steering the running one, keeps its record through the inbox; an edit drops it", () => {
    const script: Script = {
      responses: [
        // A write waits for its answer: the turn runs until the test has sent the rest, however slow the machine.
        { chunks: [{ toolCall: { id: "call_hold", name: "write_file", input: { path: "b.txt", content: "b\n" } } }] },
        { chunks: [{ text: "done A" }] },
        "done C",
        "done D"
      ]
    }
    const { cwd, layer } = setup(script, true)
    return Effect.gen(function* () {
      const host = yield* AgentHost
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const watcher = yield* untilTurnsDone(host.subscribe(sessionId, 0), 3).pipe(Effect.fork)
      const a = yield* host.prompt({ sessionId, content: "A" })
      const b = yield* host.prompt({ sessionId, content: "/deploy staging", mode: "steer" })
      const c = yield* host.prompt({ sessionId, content: "/greet Cy" })
      const d = yield* host.prompt({ sessionId, content: "/mine edited away" })
      expect([a._tag, b._tag, c._tag, d._tag]).toEqual(["Started", "Queued", "Queued", "Queued"])
      const queued = (yield* host.getSession(sessionId)).inbox
      expect(queued.nextStep.map((m) => m.command?.name)).toEqual(["deploy"])
      expect(queued.nextTurn.map((m) => [m.content, m.command?.name])).toEqual([
        ["Say hello to Cy, then to Cy.", "greet"],
        ["Mine: edited away", "mine"]
      ])
      if (d._tag !== "Queued") return expect.unreachable()
      yield* host.editQueue(sessionId, d.messageId, { _tag: "Edit", content: "D by hand" })
      // The question may not be asked yet: answered once it is.
      yield* host.respondPermission(sessionId, "call_hold", { decision: "allow", scope: "once" }).pipe(
        Effect.retry({ while: (error) => error._tag === "PermissionNotPending", schedule: Schedule.spaced("10 millis") })
      )
      yield* Fiber.join(watcher)
      const messages = eventsOf(yield* replayAll(sessionId), "user.message").map((e) => [e.payload.content, e.payload.mode, e.payload.command?.name])
      expect(messages).toEqual([
        ["A", "queue", undefined],
        ["Deploy to staging.", "steer", "deploy"],
        ["Say hello to Cy, then to Cy.", "queue", "greet"],
        ["D by hand", "queue", undefined]
      ])
    }).pipe(Effect.provide(layer))
  })

  it.live("a host without a commands service sends every prompt as it is and lists none", () =>
    Effect.gen(function* () {
      const cwd = temp.dir("commands-none-")
      put(cwd, { ".claude/commands/greet.md": GREET })
      const host = yield* AgentHost
      expect(yield* host.listCommands({ cwd })).toEqual({ commands: [], problems: [] })
      const { sessionId } = yield* host.createSession({ cwd, client: "test" })
      const watcher = yield* untilTurnsDone(host.subscribe(sessionId, 0), 1).pipe(Effect.fork)
      yield* host.prompt({ sessionId, content: "/greet Ada" })
      yield* Fiber.join(watcher)
      expect(eventsOf(yield* replayAll(sessionId), "user.message").map((e) => e.payload)).toEqual([{ content: "/greet Ada", mode: "queue" }])
    }).pipe(Effect.provide(hostTestLayer(MemoryStore.layer, { responses: ["ok"] })))
  )
})
